import { connect } from "node:net";

/**
 * Sends a request head (and `body`, if any) over a raw socket, for what an HTTP client will not send: a crafted
 * header, a head without its body. Resolves with what came back before the server closed or `waitMs` passed.
 */
export function rawRequest(url: string, head: string, body?: Buffer, waitMs = 3_000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      if (body) socket.write(body);
    });
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}
