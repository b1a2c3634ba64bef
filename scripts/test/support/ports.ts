import { createServer } from "node:net";
import { SERVICE_PORTS } from "@docex/kit/config";

/** Whether nothing listens on 127.0.0.1:`port` (we can bind it ourselves). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Every port a stack at offset 0 listens on (gateway and services, HTTP and gRPC), with one process per service. */
export const STACK_PORTS = Object.values(SERVICE_PORTS)
  .flatMap(({ http, grpc }) => [http, grpc])
  .filter((port) => port > 0);

/**
 * One of `candidates` at which every port of a stack is free, tried in random order, so that test stacks of two
 * checkouts (or two test processes) on one machine do not take each other's ports. Offsets are 100 apart and a
 * stack's ports span less than that, so stacks at different offsets never overlap.
 */
export async function freePortOffset(candidates: readonly number[], ports: readonly number[] = STACK_PORTS): Promise<number> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const offset = candidates[Math.floor(Math.random() * candidates.length)]!;
    const free = await Promise.all(ports.map((port) => portIsFree(port + offset)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error("no free port offset for a stack was found");
}

/** Offsets from `from` to `to`, 100 apart. */
export function offsetsBetween(from: number, to: number): number[] {
  const offsets: number[] = [];
  for (let offset = from; offset <= to; offset += 100) offsets.push(offset);
  return offsets;
}
