import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * An HTTP server on 127.0.0.1 (a free port) that reads each request's whole body before `handle` sees it: what the
 * test receivers (RecordingReceiver, OtlpReceiver) are built on.
 */
export async function listenWithBodies(
  handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void | Promise<void>,
): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
