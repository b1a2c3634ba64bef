import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Where a traced benchmark sends its spans: an OTLP/HTTP endpoint that reads each export and answers 200, counting
 * requests and bytes without decoding them, so that it costs the load generator next to nothing.
 */
export class OtlpSink {
  requests = 0;
  bytes = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpSink> {
    let sink: OtlpSink | undefined;
    const server = createServer((req, res) => {
      req.on("data", (chunk: Buffer) => {
        sink!.bytes += chunk.length;
      });
      req.on("end", () => {
        sink!.requests += 1;
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    sink = new OtlpSink(server);
    return sink;
  }

  /** OTEL_EXPORTER_OTLP_ENDPOINT for the traced processes. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
