import { once } from "node:events";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation, type ServingStatusMap } from "grpc-health-check";
import { DomainError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { isConcurrencyConflict, isTransientDatabaseFailure } from "../transient-failures.js";
import { type GrpcIdentity, serviceOfPeer } from "./identity.js";

export interface GrpcCallContext {
  requestId: string;
  logger: Logger;
  /** Aborted when the caller cancels or its deadline passes (server-streaming calls). */
  signal?: AbortSignal;
  /** The calling service, from its verified client certificate; "" on an insecure (GRPC_INSECURE) server. */
  caller: string;
  /** The caller's deadline (epoch ms); undefined when it set none. Work on its behalf should end before it. */
  deadlineAt?: number;
}

/** A call's deadline as epoch ms, or undefined for none (grpc-js answers Infinity). */
function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): number | undefined {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? at : undefined;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: GrpcCallContext) => Promise<Res>;

/** Trailer of a call refused by the caller check (see GrpcClient). */
export const CALLER_REFUSED_TRAILER = "docex-caller-refused";

/** Every service whose certificate the CA signed may call (test doubles; grpc.health.v1). */
export const ANY_SERVICE = "any-service" as const;

/**
 * Who may call each method of a service: the service names (certificate CNs) allowed, per method. A method
 * missing from the list, or with an empty list, is refused to everyone. Declared next to the handlers.
 */
export type AllowedCallers<M extends string = string> = { readonly [K in M]: readonly string[] } | typeof ANY_SERVICE;

export interface GrpcServerOptions {
  /** The server's certificate and the CA its callers must be signed by (or insecure, GRPC_INSECURE). */
  identity: GrpcIdentity;
  metrics?: Metrics;
  /** How long a caller's connection lives before it is asked to reconnect (GOAWAY); `MAX_CONNECTION_AGE_MS` unless given. */
  maxConnectionAgeMs?: number;
  /** The largest request message it takes (grpc-js: 4 MiB unless given); a server that takes files sets it above their limit. */
  maxReceiveMessageBytes?: number;
}

/**
 * A connection's lifetime (grpc-js adds ±10 % jitter). When it ends, the caller's channel resolves its target
 * again, so that pods an autoscaler added behind a headless Service get their share of the calls within a minute.
 */
export const MAX_CONNECTION_AGE_MS = 60_000;
/** Calls in flight on a connection past its age may finish for this long: the longest deadline callers set (extraction's file reads, 60 s). */
export const MAX_CONNECTION_AGE_GRACE_MS = 60_000;

/**
 * A server-streaming handler: the messages it yields are sent in order, each waiting for the transport to take the
 * previous ones (backpressure). A domain error thrown before or between messages ends the call with its status.
 */
export type ServerStreamHandler<Req, Res> = (request: Req, ctx: GrpcCallContext) => AsyncIterable<Res>;

/**
 * A gRPC server with grpc.health.v1, request ids from metadata, and domain errors turned
 * into status codes in one place. Handlers are plain async functions.
 *
 * With a TLS identity it takes only callers with a client certificate of its CA (the handshake fails
 * otherwise), and an interceptor in front of every method, unary or streaming, refuses a caller whose
 * certificate's service name is not in that method's allowed callers: UNAUTHENTICATED without a
 * verified certificate, PERMISSION_DENIED for a service not on the list.
 */
export class GrpcServer {
  readonly server: grpc.Server;
  private readonly health: HealthImplementation;
  private readonly serviceNames: string[] = [];
  /** "/package.Service/Method" → the services allowed to call it. */
  private readonly callers = new Map<string, ReadonlySet<string> | typeof ANY_SERVICE>();
  private readonly identity: GrpcIdentity;
  private readonly metrics?: Metrics;
  private boundPort = 0;
  private isServing = false;
  /**
   * The caller the check found, by the call's metadata (the object the handler receives): reading the peer's
   * certificate again costs as much as the check (a fresh X.509 parse each time).
   */
  private readonly verifiedCallers = new WeakMap<grpc.Metadata, string>();

  constructor(
    private readonly logger: Logger,
    options: GrpcServerOptions,
  ) {
    this.identity = options.identity;
    this.metrics = options.metrics;
    this.server = new grpc.Server({
      "grpc.keepalive_permit_without_calls": 1,
      "grpc.max_connection_age_ms": options.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS,
      "grpc.max_connection_age_grace_ms": MAX_CONNECTION_AGE_GRACE_MS,
      ...(options.maxReceiveMessageBytes ? { "grpc.max_receive_message_length": options.maxReceiveMessageBytes } : {}),
      interceptors: [(descriptor, call) => this.checkCaller(descriptor, call)],
    });
    const statusMap: ServingStatusMap = { "": "NOT_SERVING" };
    this.health = new HealthImplementation(statusMap);
    this.health.addToServer(this.server);
    // Health is no secret, but only holders of a certificate of the CA get through the handshake.
    for (const method of ["Check", "Watch"]) this.callers.set(`/grpc.health.v1.Health/${method}`, ANY_SERVICE);
  }

  /** Unary methods take a UnaryHandler, server-streaming ones (responseStream in the definition) a ServerStreamHandler. */
  addService<H extends Record<string, UnaryHandler<never, unknown> | ServerStreamHandler<never, unknown>>>(
    service: grpc.ServiceDefinition,
    serviceName: string,
    handlers: H,
    callers: AllowedCallers<Extract<keyof H, string>>,
  ): void {
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [method, handler] of Object.entries(handlers)) {
      const definition = service[method];
      if (definition?.requestStream) throw new Error(`${serviceName}/${method}: client-streaming methods are not supported`);
      implementation[method] = definition?.responseStream
        ? this.wrapServerStream(serviceName, method, handler as ServerStreamHandler<unknown, unknown>)
        : this.wrapUnary(serviceName, method, handler as UnaryHandler<unknown, unknown>);
    }
    for (const [method, definition] of Object.entries(service)) {
      const allowed = callers === ANY_SERVICE ? ANY_SERVICE : new Set((callers as Record<string, readonly string[]>)[method] ?? []);
      this.callers.set(definition.path, allowed);
    }
    this.server.addService(service, implementation);
    this.serviceNames.push(serviceName);
    this.health.setStatus(serviceName, "NOT_SERVING");
  }

  private wrapUnary(serviceName: string, method: string, handler: UnaryHandler<unknown, unknown>): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => {
      const requestId = String(call.metadata.get("x-request-id")[0] ?? "") || crypto.randomUUID();
      const caller = this.callerOf(call);
      const logger = this.logger.child({ request_id: requestId, grpc_method: `${serviceName}/${method}`, ...(caller ? { caller } : {}) });
      const stopTimer = this.metrics?.grpcServerDuration.startTimer({ grpc_service: serviceName, method });
      handler(call.request, { requestId, logger, caller, deadlineAt: deadlineOf(call) }).then(
        (response) => {
          stopTimer?.({ code: "OK" });
          callback(null, response);
        },
        (error: unknown) => {
          const status = statusOf(error, logger);
          stopTimer?.({ code: grpc.status[status.code] });
          callback(status);
        },
      );
    };
  }

  private wrapServerStream(
    serviceName: string,
    method: string,
    handler: ServerStreamHandler<unknown, unknown>,
  ): grpc.handleServerStreamingCall<unknown, unknown> {
    return (call) => {
      const requestId = String(call.metadata.get("x-request-id")[0] ?? "") || crypto.randomUUID();
      const caller = this.callerOf(call);
      const logger = this.logger.child({ request_id: requestId, grpc_method: `${serviceName}/${method}`, ...(caller ? { caller } : {}) });
      const stopTimer = this.metrics?.grpcServerDuration.startTimer({ grpc_service: serviceName, method });
      const aborted = new AbortController();
      call.on("cancelled", () => aborted.abort());
      const send = async () => {
        for await (const message of handler(call.request, { requestId, logger, caller, signal: aborted.signal })) {
          if (aborted.signal.aborted) return;
          if (!call.write(message)) await Promise.race([once(call, "drain"), once(aborted.signal, "abort")]);
        }
      };
      send().then(
        () => {
          if (aborted.signal.aborted) {
            stopTimer?.({ code: "CANCELLED" });
            return;
          }
          stopTimer?.({ code: "OK" });
          call.end();
        },
        (error: unknown) => {
          if (aborted.signal.aborted) {
            stopTimer?.({ code: "CANCELLED" });
            return;
          }
          const status = statusOf(error, logger);
          stopTimer?.({ code: grpc.status[status.code] });
          call.emit("error", status);
        },
      );
    };
  }

  /** The interceptor in front of every call: the caller's certificate must name a service allowed to call the method. */
  /** The calling service: as the caller check found it, else from its certificate; "" without one (insecure). */
  private callerOf(call: { metadata: grpc.Metadata; getAuthContext(): Parameters<typeof serviceOfPeer>[0] }): string {
    return this.verifiedCallers.get(call.metadata) ?? serviceOfPeer(call.getAuthContext()) ?? "";
  }

  private checkCaller(descriptor: grpc.ServerMethodDefinition<unknown, unknown>, call: grpc.ServerInterceptingCallInterface) {
    if (this.identity.isInsecure) return new grpc.ServerInterceptingCall(call);
    const refuse = (code: grpc.status, details: string) => {
      this.logger.warn(
        { grpc_method: descriptor.path, peer: call.getPeer(), code: grpc.status[code] },
        "gRPC call refused: caller not allowed",
      );
      this.metrics?.grpcServerDuration.observe(
        { grpc_service: descriptor.path.split("/")[1] ?? "", method: descriptor.path.split("/")[2] ?? "", code: grpc.status[code] },
        0,
      );
      const trailers = new grpc.Metadata();
      // Tells the kit's client that this is a deployment problem, not an answer about the request.
      trailers.set(CALLER_REFUSED_TRAILER, "1");
      call.sendStatus({ code, details, metadata: trailers });
    };
    // The check runs when the call's metadata arrives, before any message reaches a handler of any kind.
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, passOn) => {
        const caller = serviceOfPeer(call.getAuthContext());
        const allowed = this.callers.get(descriptor.path);
        if (!caller) refuse(grpc.status.UNAUTHENTICATED, "a client certificate of the service CA is required");
        else if (allowed === undefined || (allowed !== ANY_SERVICE && !allowed.has(caller)))
          refuse(grpc.status.PERMISSION_DENIED, `${caller} may not call ${descriptor.path}`);
        else {
          this.verifiedCallers.set(metadata, caller);
          passOn(metadata);
        }
      })
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  }

  async listen(host: string, port: number): Promise<number> {
    if (this.identity.isInsecure) this.logger.warn("gRPC server is plaintext and checks no callers (GRPC_INSECURE=true)");
    this.boundPort = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`${host}:${port}`, this.identity.serverCredentials(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      );
    });
    this.setServing(true);
    return this.boundPort;
  }

  get port(): number {
    return this.boundPort;
  }

  /** Listening and not shutting down (what grpc.health.v1 answers SERVING for). */
  get serving(): boolean {
    return this.isServing;
  }

  setServing(serving: boolean): void {
    this.isServing = serving;
    const status = serving ? "SERVING" : "NOT_SERVING";
    this.health.setStatus("", status);
    for (const name of this.serviceNames) this.health.setStatus(name, status);
  }

  /** Stops taking calls and lets in-flight ones finish, forcing after the timeout. */
  async shutdown(timeoutMs: number): Promise<void> {
    this.setServing(false);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, timeoutMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * Domain errors the caller should expect keep their message, followed by the fields they name ("The request is
 * invalid. fields_json: expected array"), so the caller's logs say what was wrong; a lost database connection or a
 * transaction aborted for a concurrent one's sake is UNAVAILABLE (the caller answers 503, as this service's own HTTP
 * edge would); anything else is logged and answered "internal error".
 */
function statusOf(error: unknown, logger: Logger): { code: grpc.status; details: string } {
  if (error instanceof DomainError && error.status < 500) {
    const fields = error.errors.map((field) => `${field.path}: ${field.message}`).join("; ");
    return { code: error.grpcCode, details: fields && !error.message.includes(fields) ? `${error.message} ${fields}` : error.message };
  }
  logger.error({ err: error }, "gRPC handler failed");
  if (isTransientDatabaseFailure(error)) return { code: grpc.status.UNAVAILABLE, details: "database unavailable" };
  // Nothing was applied and the same call again will most likely go through: what UNAVAILABLE tells a caller.
  if (isConcurrencyConflict(error)) return { code: grpc.status.UNAVAILABLE, details: "a concurrent change conflicted; try again" };
  return { code: error instanceof DomainError ? error.grpcCode : grpc.status.INTERNAL, details: "internal error" };
}
