import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { listenWithBodies } from "./local-http-server.js";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
  receivedAt: number;
}

export interface ReceiverAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string | object;
  delayMs?: number;
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers as the test says. */
export class RecordingReceiver {
  readonly requests: RecordedRequest[] = [];
  private answer: (request: RecordedRequest) => ReceiverAnswer | Promise<ReceiverAnswer> = () => ({ status: 200, body: "" });
  private waiters: Array<() => void> = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<RecordingReceiver> {
    let receiver: RecordingReceiver | undefined;
    const server = await listenWithBodies(async (req, bytes, res) => {
      const rawBody = bytes.toString("utf8");
      let body: unknown = rawBody;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {}
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
      };
      receiver!.requests.push(recorded);
      for (const wake of receiver!.waiters.splice(0)) wake();
      const answer = await receiver!.answer(recorded);
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (res.destroyed) return;
      const text = typeof answer.body === "string" || answer.body === undefined ? (answer.body ?? "") : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      res.end(text);
    });
    receiver = new RecordingReceiver(server);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  respondWith(answer: (request: RecordedRequest) => ReceiverAnswer | Promise<ReceiverAnswer>): void {
    this.answer = answer;
  }

  /** Resolves once at least `count` requests arrived; rejects after `timeoutMs`. */
  async waitForRequests(count: number, timeoutMs = 10_000): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} requests, received ${this.requests.length} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.requests;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
