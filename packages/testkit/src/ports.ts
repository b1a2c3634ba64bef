import { createServer } from "node:net";

/**
 * A port on 127.0.0.1 that the kernel handed out as free a moment ago and on which nothing listens now: a
 * service's port named in another's settings before it starts, or an address where nobody answers.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
