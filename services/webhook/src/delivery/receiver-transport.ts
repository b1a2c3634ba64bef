import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import { Agent, type Dispatcher } from "undici";
import type { TargetPolicy } from "../domain/target-policy.js";
import { parsedTarget } from "./parsed-targets.js";

export const USER_AGENT = "docex-webhooks/2";

/** 4xx answers other than these say the request or URL is wrong, not that the receiver is down. */
const RECEIVER_DOWN_4XX = new Set([408, 425, 429]);

/** What one POST to a receiver came to. */
export interface PostResult {
  /** Null when no answer arrived (connection failure, timeout, refusal). */
  statusCode: number | null;
  headers: Record<string, string | string[] | undefined>;
  /** The first `excerptBytes` bytes of the answer's body, as received (raw bytes: a signature is over bytes). */
  body: Buffer | null;
  /** True when the answer's body was longer than `body`. */
  truncated: boolean;
  /** Why the body stopped before its end (reset, timeout, abort); null when it was read to its end or to the limit. */
  cutShort: string | null;
  /** Why no answer arrived; null when one did. */
  error: string | null;
  /** True when the SSRF guard refused the target: nothing was sent. */
  refused: boolean;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  /** Bytes of the answer kept in `body`: the first 1 KiB for a delivery's record; a validation answer needs all of it. */
  excerptBytes: number;
  /** Aborts the request wherever it is (connecting, waiting, reading the body): the caller's time is up. */
  signal?: AbortSignal;
}

/** The error a refused connection fails with; its code lets the result say "refused" rather than "failed". */
class TargetRefusedError extends Error {
  readonly code = "ETARGETREFUSED";
}

/** Reads at least this much of an answer (to keep the connection) before dropping it: a receiver cannot make us read forever. */
const MIN_READ_BYTES = 64 * 1024;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Outbound HTTP to integrators' receivers: one undici Agent (keep-alive pools per origin) whose sockets are
 * dialled only after the SSRF guard has judged every address the host name resolved to. The guard sits in
 * the connection's own DNS lookup, so the address judged is the address dialled: a name that resolves to
 * something else a second time (DNS rebinding) is judged again. IP literals skip DNS and are judged before
 * the request. Redirects are not followed (a 3xx is a failed attempt).
 */
export class ReceiverTransport {
  private readonly agent: Agent;

  constructor(
    private readonly policy: TargetPolicy,
    options: { connectionsPerOrigin?: number; connectTimeoutMs?: number } = {},
  ) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 32,
      keepAliveTimeout: 10_000,
      connect: { timeout: options.connectTimeoutMs ?? 5_000, lookup: this.guardedLookup },
    });
  }

  private readonly guardedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    this.policy.resolve(hostname).then(
      (addresses) => {
        const usable = addresses.filter(({ family }) => !options.family || family === options.family);
        const refusal = this.policy.refusalOf(addresses);
        // The kind of address, not the address: the error is shown in the delivery's attempts.
        if (refusal) return callback(new TargetRefusedError(`refused: the URL's host name resolves to ${refusal}`), []);
        const first = usable[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} has no usable address`), { code: "ENOTFOUND" }), []);
        if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };

  async post(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = parsedTarget(url);
    if (isIP(target.host)) {
      const refusal = this.policy.refusalOf([{ address: target.host, family: isIP(target.host) }]);
      if (refusal) return { ...NO_ANSWER, error: `refused: the URL's host is ${refusal}`, refused: true, durationMs: elapsed() };
    }
    const { signal } = options;
    const answer = await new Promise<Answer>((resolve) => {
      // headersTimeout bounds the wait for the answer (the 10 s of "a 2xx within 10 s"); bodyTimeout each pause in its body.
      this.agent.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: "POST",
          headers,
          body,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        new AnswerReader(options.excerptBytes, signal, resolve),
      );
    });
    if (answer.statusCode === null) {
      const code = (answer.failure as { code?: string } | undefined)?.code;
      const refused = code === "ETARGETREFUSED";
      const timedOut = code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || signal?.aborted;
      const message = timedOut ? `no answer within ${options.timeoutMs} ms` : describe(answer.failure);
      return { ...NO_ANSWER, error: message, refused, durationMs: elapsed() };
    }
    return {
      statusCode: answer.statusCode,
      headers: answer.headers,
      body: answer.kept,
      truncated: answer.truncated,
      cutShort:
        answer.failure === undefined ? null : signal?.aborted ? `no answer within ${options.timeoutMs} ms` : describe(answer.failure),
      error: null,
      refused: false,
      durationMs: elapsed(),
    };
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

/** A 2xx is a success; network failures, timeouts, 5xx, 408, 425 and 429 count against the receiver's breaker. */
export function verdictOf(result: PostResult): { failed: boolean; counts: boolean } {
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) return { failed: false, counts: false };
  if (result.refused) return { failed: true, counts: false };
  if (status !== null && status >= 300 && status < 500 && !RECEIVER_DOWN_4XX.has(status)) return { failed: true, counts: false };
  return { failed: true, counts: true };
}

const NO_ANSWER = { statusCode: null, headers: {}, body: null, truncated: false, cutShort: null };

/** What came back: an answer (status, headers, the kept bytes), or the failure that stopped it first. */
interface Answer {
  statusCode: number | null;
  headers: Record<string, string | string[] | undefined>;
  kept: Buffer | null;
  truncated: boolean;
  /** Without a status: why no answer arrived. With one: why its body stopped before its end (reset, timeout, abort). */
  failure: unknown;
}

/**
 * Reads one answer straight from undici's dispatcher (no stream per request): the first `limit` bytes of its
 * body are kept; reading stops (and the connection is dropped) past max(limit, 64 KiB). An aborted `signal`
 * aborts the request wherever it is; before it has a connection, as soon as it gets one (as undici's request() does).
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode: number | null = null;
  private headers: Record<string, string | string[] | undefined> = {};
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private readBytes = 0;
  private stoppedReading = false;
  private done = false;
  private readonly onAbort = () => this.controller?.abort(this.signal?.reason);

  constructor(
    private readonly limit: number,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (answer: Answer) => void,
  ) {
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx answers are informational: the real one follows.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.stoppedReading) return;
    this.readBytes += chunk.length;
    if (this.keptBytes < this.limit) {
      const part = chunk.subarray(0, this.limit - this.keptBytes);
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    if (this.readBytes > Math.max(this.limit, MIN_READ_BYTES)) {
      this.stoppedReading = true;
      this.finish(undefined);
      controller.abort(new Error("answer too long"));
    }
  }

  onResponseEnd(): void {
    this.finish(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    // A body cut short (timeout, reset) still has its status; what arrived is kept.
    this.finish(error);
  }

  private finish(failure: unknown): void {
    if (this.done) return;
    this.done = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.resolve({
      statusCode: this.statusCode,
      headers: this.headers,
      // A copy: the chunks are views of undici's socket reads.
      kept: this.keptBytes === 0 ? null : Buffer.concat(this.kept, this.keptBytes),
      truncated: this.readBytes > this.keptBytes,
      failure,
    });
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  const cause = (error as { cause?: unknown }).cause;
  const message = error.message || code || error.name;
  if (cause instanceof Error && cause.message && !message.includes(cause.message)) return `${message}: ${cause.message}`;
  return message;
}
