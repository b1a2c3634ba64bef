import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The ports handed out here: below the kernel's ephemeral range (`ip_local_port_range`), from which it picks the
 * local port of every outgoing connection and of every `listen(0)`. A port from that range, free a moment ago,
 * could be taken by any process's next connection to Postgres or NATS before the service binds it (a CI run lost a
 * service's gRPC port that way: EADDRINUSE at its start). And below the whole stacks the scripts' tests start at
 * fixed ports (SERVICE_PORTS moved by 10,000 and more: 18,080 and up).
 */
const LOWEST = 10_000;
const HIGHEST = 18_000;

/** Ports this process has handed out: never twice, so two services named before either starts never share one. */
const handedOut = new Set<number>();

/**
 * A port on 127.0.0.1 on which nothing listens now and which no other process will be given by the kernel: a
 * service's port named in another's settings before it starts, or an address where nobody answers.
 */
export async function freePort(): Promise<number> {
  if (firstEphemeralPort() > HIGHEST) {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const port = LOWEST + randomInt(HIGHEST - LOWEST);
      if (handedOut.has(port) || !(await listensOn(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  // A machine whose ephemeral range starts too low: the kernel's pick.
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  handedOut.add(port);
  return port;
}

/** True when a server could listen on `port` of 127.0.0.1 (it is closed again at once). */
function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function firstEphemeralPort(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 0;
  } catch {
    return 0;
  }
}
