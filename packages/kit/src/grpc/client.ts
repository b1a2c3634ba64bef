import * as grpc from "@grpc/grpc-js";
import CircuitBreaker from "opossum";
import { DomainError, domainErrorFromGrpcCall, serviceLabelOf, UpstreamError } from "../errors.js";
import type { Metrics } from "../metrics.js";
import type { GrpcIdentity } from "./identity.js";
import { CALLER_REFUSED_TRAILER } from "./server.js";

export interface CallContext {
  requestId?: string;
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
}

export interface GrpcClientOptions {
  /** The caller's certificate (presented to the server) and the CA the server must be signed by. */
  identity: GrpcIdentity;
  /**
   * The service name the server's certificate must carry, whatever the address (e.g. "document");
   * createPromiseClient derives it from the gRPC service name.
   */
  serverName?: string;
  /** Deadline of every call unless the call sets its own. */
  deadlineMs?: number;
  metrics?: Metrics;
  /** Wraps calls in an opossum breaker: a dependency that keeps failing is answered at once. */
  breaker?: { errorThresholdPercentage?: number; resetTimeoutMs?: number; volumeThreshold?: number };
  /** How often the connections are renewed (a new channel, warmed before it takes calls); `RENEW_CHANNEL_MS` unless given. */
  renewEveryMs?: number;
}

/** The longest a channel waits between attempts to reach a server that is down. */
export const MAX_RECONNECT_BACKOFF_MS = 2_000;

/**
 * How often a client replaces its channel: below the servers' connection age (MAX_CONNECTION_AGE_MS less grpc-js's
 * 10 % jitter, 54 s at the least), so the client, not the server's GOAWAY, ends a connection. A GOAWAY makes grpc-js
 * connect again at once, but calls made meanwhile wait for that handshake (mutual TLS) when one server is behind the
 * target; a renewal by the client connects and warms the new channel while the old one still takes the calls.
 */
export const RENEW_CHANNEL_MS = 45_000;
/** The longest a renewal or a warm-up waits for the new channel's first answer. */
export const WARM_UP_TIMEOUT_MS = 5_000;

const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

type UnaryMethod = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response?: unknown) => void,
) => grpc.ClientUnaryCall;

type ServerStreamMethod = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;

/** One channel of a client, with the calls under way on it: a channel that was replaced closes when it has none left. */
interface Channel {
  client: grpc.Client;
  inFlight: number;
  retired: boolean;
}

/**
 * A gRPC client made once per process: one channel per target, deadlines, metrics, breaker. `warm()` opens the
 * channel and asks the server's grpc.health.v1 once; every `renewEveryMs` a new channel is opened and warmed the
 * same way, and takes the calls only then; the old one closes once its calls are done.
 */
export class GrpcClient {
  private channel: Channel;
  private readonly makeChannel: () => grpc.Client;
  private renewal: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private closed = false;
  private readonly breaker?: CircuitBreaker<[string, unknown, CallContext], unknown>;
  private readonly deadlineMs: number;
  /** The gRPC service's full name (docex.document.v1.Document); problems name the service by it, never by `target`. */
  private readonly serviceName: string;

  constructor(
    ServiceClient: grpc.ServiceClientConstructor,
    readonly target: string,
    private readonly options: GrpcClientOptions,
  ) {
    this.deadlineMs = options.deadlineMs ?? 2_000;
    this.serviceName = (ServiceClient as { serviceName?: string }).serviceName ?? "";
    this.makeChannel = () =>
      new ServiceClient(target, options.identity.channelCredentials(), {
        ...(options.serverName ? options.identity.channelOptions(options.serverName) : {}),
        "grpc.keepalive_time_ms": 30_000,
        "grpc.keepalive_timeout_ms": 10_000,
        "grpc.keepalive_permit_without_calls": 1,
        // A channel whose server is down fails calls at once and tries to connect again with a growing backoff
        // (grpc-js: up to 120 s). A service that starts before its dependency, or outlives its restart, would then
        // fail calls for seconds to minutes after the dependency is back: in a cluster, trying every 2 s at most is
        // cheap, and the calls work again within about that.
        "grpc.initial_reconnect_backoff_ms": 250,
        "grpc.max_reconnect_backoff_ms": MAX_RECONNECT_BACKOFF_MS,
        // Calls spread over every address the target resolves to (the pods behind a headless Service, or an
        // ipv4: list), not all over the first connection. Each renewal (as a server's GOAWAY at its maximum age)
        // resolves the target again and finds pods added since.
        "grpc.service_config": ROUND_ROBIN,
        // Each channel its own connections: a renewed channel shares none with the one it replaces.
        "grpc.use_local_subchannel_pool": 1,
      });
    this.channel = { client: this.makeChannel(), inFlight: 0, retired: false };
    const renewEveryMs = options.renewEveryMs ?? RENEW_CHANNEL_MS;
    this.renewal = setInterval(() => void this.renew(), renewEveryMs);
    this.renewal.unref();
    if (options.breaker) {
      this.breaker = new CircuitBreaker((method: string, request: unknown, ctx: CallContext) => this.invoke(method, request, ctx), {
        timeout: false,
        errorThresholdPercentage: options.breaker.errorThresholdPercentage ?? 50,
        resetTimeout: options.breaker.resetTimeoutMs ?? 5_000,
        volumeThreshold: options.breaker.volumeThreshold ?? 5,
        // Answers the caller gives on purpose (not found, invalid, forbidden) say nothing of the dependency's health.
        errorFilter: (error: unknown) => error instanceof DomainError && !(error instanceof UpstreamError),
        // Only the counts decide whether it opens: rolling latency percentiles (a sort of the window on every
        // counted failure) and periodic snapshots are work nothing reads (#19's delivery profile).
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
      });
      const gauge = options.metrics?.breakerState;
      const label = { breaker: `grpc:${target}` };
      this.breaker.on("open", () => gauge?.set(label, 2));
      this.breaker.on("halfOpen", () => gauge?.set(label, 1));
      this.breaker.on("close", () => gauge?.set(label, 0));
    }
  }

  /** Calls a unary method; failures arrive as domain errors (gRPC status mapped back). */
  async unary<Req, Res>(method: string, request: Req, ctx: CallContext = {}): Promise<Res> {
    if (!this.breaker) return (await this.invoke(method, request, ctx)) as Res;
    try {
      return (await this.breaker.fire(method, request, ctx)) as Res;
    } catch (error) {
      if (error instanceof Error && (error as { code?: string }).code === "EOPENBREAKER") {
        throw new UpstreamError(503, `The ${serviceLabelOf(this.serviceName)} service is unavailable.`, "upstream_unavailable");
      }
      throw error;
    }
  }

  /**
   * Calls a server-streaming method: its messages, in order, as an async iterable. The deadline covers the whole
   * stream; a failure (the status mapped back to a domain error) is thrown from the iteration. Leaving the loop
   * early cancels the call. An open breaker refuses at once, but streams do not count towards it.
   */
  async *serverStream<Req, Res>(method: string, request: Req, ctx: CallContext = {}): AsyncGenerator<Res, void, undefined> {
    if (this.breaker?.opened)
      throw new UpstreamError(503, `The ${serviceLabelOf(this.serviceName)} service is unavailable.`, "upstream_unavailable");
    const channel = this.channel;
    const fn = (channel.client as unknown as Record<string, ServerStreamMethod>)[method];
    if (typeof fn !== "function") throw new Error(`gRPC method ${method} is not defined on ${this.target}`);
    const metadata = new grpc.Metadata();
    if (ctx.requestId) metadata.set("x-request-id", ctx.requestId);
    const deadline = new Date(Date.now() + (ctx.deadlineMs ?? this.deadlineMs));
    const stopTimer = this.options.metrics?.grpcClientDuration.startTimer({ target: this.target, method });
    channel.inFlight += 1;
    const call = fn.call(channel.client, request, metadata, { deadline });
    let code = grpc.status.OK;
    let finished = false;
    try {
      for await (const message of call) yield message as Res;
      finished = true;
    } catch (error) {
      const failure = error as grpc.ServiceError;
      code = typeof failure.code === "number" ? failure.code : grpc.status.UNKNOWN;
      throw domainErrorFromGrpcCall({ code, details: failure.details, message: failure.message }, serviceLabelOf(this.serviceName));
    } finally {
      if (code === grpc.status.OK && !finished) {
        code = grpc.status.CANCELLED;
        call.cancel();
      }
      stopTimer?.({ code: grpc.status[code] });
      this.release(channel);
    }
  }

  private invoke(method: string, request: unknown, ctx: CallContext): Promise<unknown> {
    const channel = this.channel;
    const fn = (channel.client as unknown as Record<string, UnaryMethod>)[method];
    if (typeof fn !== "function") return Promise.reject(new Error(`gRPC method ${method} is not defined on ${this.target}`));
    const metadata = new grpc.Metadata();
    if (ctx.requestId) metadata.set("x-request-id", ctx.requestId);
    const deadline = new Date(Date.now() + (ctx.deadlineMs ?? this.deadlineMs));
    const stopTimer = this.options.metrics?.grpcClientDuration.startTimer({ target: this.target, method });
    channel.inFlight += 1;
    return new Promise((resolve, reject) => {
      fn.call(channel.client, request, metadata, { deadline }, (error, response) => {
        stopTimer?.({ code: grpc.status[error?.code ?? grpc.status.OK] });
        this.release(channel);
        if (error?.metadata?.get(CALLER_REFUSED_TRAILER).length) {
          // Our own certificate was refused (not on the method's callers, or not of the server's CA): a deployment
          // fault the end user can do nothing about and should not read the details of.
          reject(new UpstreamError(502, "An internal service refused this service's identity.", "upstream_refused"));
        } else if (error) reject(domainErrorFromGrpcCall(error, serviceLabelOf(this.serviceName)));
        else resolve(response);
      });
    });
  }

  /**
   * Opens the channel and waits for the server's grpc.health.v1 answer (any answer: the handshake, the HTTP/2
   * connection and the server's check of this caller's certificate are then done), at most `timeoutMs`. True
   * when it answered; false when it did not in time, and the channel goes on trying to connect.
   */
  warm(timeoutMs = WARM_UP_TIMEOUT_MS): Promise<boolean> {
    return askHealth(this.channel.client, timeoutMs);
  }

  /** The channel's state now (READY: a connection is open and takes calls). */
  get connectivityState(): grpc.connectivityState {
    return this.channel.client.getChannel().getConnectivityState(false);
  }

  /**
   * Replaces a channel in use (READY) by a new one, once the new one answered (`warm`): calls go on over the old one
   * meanwhile, and it closes when the last of them ends. A new channel that does not answer in time is dropped, and
   * the old one stays (a dependency that is down: the old channel reconnects by itself).
   */
  renew(): Promise<void> {
    this.renewing ??= (async () => {
      if (this.closed || this.connectivityState !== grpc.connectivityState.READY) return;
      const fresh = this.makeChannel();
      const answered = await askHealth(fresh, WARM_UP_TIMEOUT_MS);
      if (!answered || this.closed) {
        fresh.close();
        return;
      }
      const old = this.channel;
      this.channel = { client: fresh, inFlight: 0, retired: false };
      old.retired = true;
      if (old.inFlight === 0) old.client.close();
    })().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.renewal);
    this.breaker?.shutdown();
    this.channel.client.close();
  }

  private release(channel: Channel): void {
    channel.inFlight -= 1;
    if (channel.retired && channel.inFlight === 0) channel.client.close();
  }
}

const HEALTH_CHECK = "/grpc.health.v1.Health/Check";
const rawBytes = { serialize: (value: Buffer) => value, deserialize: (value: Buffer) => value };

/**
 * One grpc.health.v1 Check (service "": an empty HealthCheckRequest), which connects the channel: it waits for a
 * connection under way, and fails at once when the server refuses it (the channel keeps trying by itself). Any answer
 * but UNAVAILABLE, DEADLINE_EXCEEDED and CANCELLED came from the server over a working connection (a server without
 * health answers UNIMPLEMENTED); the answer itself does not matter.
 */
function askHealth(client: grpc.Client, timeoutMs: number): Promise<boolean> {
  const unreached = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.CANCELLED]);
  return new Promise((resolve) => {
    try {
      client.makeUnaryRequest(
        HEALTH_CHECK,
        rawBytes.serialize,
        rawBytes.deserialize,
        Buffer.alloc(0),
        new grpc.Metadata(),
        { deadline: new Date(Date.now() + timeoutMs) },
        (error) => resolve(!error || !unreached.has(error.code)),
      );
    } catch {
      // A channel closed meanwhile (the client stopped).
      resolve(false);
    }
  });
}
