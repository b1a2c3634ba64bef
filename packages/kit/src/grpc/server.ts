import { once } from "node:events";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation, type ServingStatusMap } from "grpc-health-check";
import { DomainError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";

export interface GrpcCallContext {
  requestId: string;
  logger: Logger;
  /** Aborted when the caller cancels or its deadline passes (server-streaming calls). */
  signal?: AbortSignal;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: GrpcCallContext) => Promise<Res>;

/**
 * A server-streaming handler: the messages it yields are sent in order, each waiting for the transport to take the
 * previous ones (backpressure). A domain error thrown before or between messages ends the call with its status.
 */
export type ServerStreamHandler<Req, Res> = (request: Req, ctx: GrpcCallContext) => AsyncIterable<Res>;

/**
 * A gRPC server with grpc.health.v1, request ids from metadata, and domain errors turned
 * into status codes in one place. Handlers are plain async functions.
 */
export class GrpcServer {
  readonly server = new grpc.Server({ "grpc.keepalive_permit_without_calls": 1 });
  private readonly health: HealthImplementation;
  private readonly serviceNames: string[] = [];
  private boundPort = 0;

  constructor(
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {
    const statusMap: ServingStatusMap = { "": "NOT_SERVING" };
    this.health = new HealthImplementation(statusMap);
    this.health.addToServer(this.server);
  }

  /** Unary methods take a UnaryHandler, server-streaming ones (responseStream in the definition) a ServerStreamHandler. */
  addService<H extends Record<string, UnaryHandler<never, unknown> | ServerStreamHandler<never, unknown>>>(
    service: grpc.ServiceDefinition,
    serviceName: string,
    handlers: H,
  ): void {
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [method, handler] of Object.entries(handlers)) {
      const definition = service[method];
      if (definition?.requestStream) throw new Error(`${serviceName}/${method}: client-streaming methods are not supported`);
      implementation[method] = definition?.responseStream
        ? this.wrapServerStream(serviceName, method, handler as ServerStreamHandler<unknown, unknown>)
        : this.wrapUnary(serviceName, method, handler as UnaryHandler<unknown, unknown>);
    }
    this.server.addService(service, implementation);
    this.serviceNames.push(serviceName);
    this.health.setStatus(serviceName, "NOT_SERVING");
  }

  private wrapUnary(serviceName: string, method: string, handler: UnaryHandler<unknown, unknown>): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => {
      const requestId = String(call.metadata.get("x-request-id")[0] ?? "") || crypto.randomUUID();
      const logger = this.logger.child({ request_id: requestId, grpc_method: `${serviceName}/${method}` });
      const stopTimer = this.metrics?.grpcServerDuration.startTimer({ service: serviceName, method });
      handler(call.request, { requestId, logger }).then(
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
      const logger = this.logger.child({ request_id: requestId, grpc_method: `${serviceName}/${method}` });
      const stopTimer = this.metrics?.grpcServerDuration.startTimer({ service: serviceName, method });
      const aborted = new AbortController();
      call.on("cancelled", () => aborted.abort());
      const send = async () => {
        for await (const message of handler(call.request, { requestId, logger, signal: aborted.signal })) {
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

  async listen(host: string, port: number): Promise<number> {
    this.boundPort = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      );
    });
    this.setServing(true);
    return this.boundPort;
  }

  get port(): number {
    return this.boundPort;
  }

  setServing(serving: boolean): void {
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

/** Domain errors the caller should expect keep their message; anything else is logged and answered "internal error". */
function statusOf(error: unknown, logger: Logger): { code: grpc.status; details: string } {
  if (error instanceof DomainError && error.status < 500) return { code: error.grpcCode, details: error.message };
  logger.error({ err: error }, "gRPC handler failed");
  return { code: error instanceof DomainError ? error.grpcCode : grpc.status.INTERNAL, details: "internal error" };
}
