import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * The address integrators' receivers are reached at, in front of a RecordingReceiver: closing it makes the
 * receiver down as the webhook service sees one (connections refused, open ones cut), and opening it again
 * brings the receiver back on the same port. The RecordingReceiver itself keeps every request it got.
 */
export class ReceiverDoor {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;

  private constructor(
    private readonly targetPort: number,
    private port: number,
  ) {}

  static async open(targetUrl: string): Promise<ReceiverDoor> {
    const door = new ReceiverDoor(Number(new URL(targetUrl).port), 0);
    await door.open();
    return door;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((socket) => this.forward(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (typeof address === "object" && address) this.port = address.port;
    this.server = server;
  }

  /** Refuses new connections and cuts the open ones. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private forward(client: Socket): void {
    const upstream = createConnection({ host: "127.0.0.1", port: this.targetPort });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}
