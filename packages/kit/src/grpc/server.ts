import * as grpc from "@grpc/grpc-js";
import { HealthImplementation, type ServingStatusMap } from "grpc-health-check";
import { DomainError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";

export interface GrpcCallContext {
  requestId: string;
  logger: Logger;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: GrpcCallContext) => Promise<Res>;

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

  addService<H extends Record<string, UnaryHandler<never, unknown>>>(
    service: grpc.ServiceDefinition,
    serviceName: string,
    handlers: H,
  ): void {
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [method, handler] of Object.entries(handlers)) {
      implementation[method] = this.wrapUnary(serviceName, method, handler as UnaryHandler<unknown, unknown>);
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
          if (error instanceof DomainError && error.status < 500) {
            stopTimer?.({ code: grpc.status[error.grpcCode] });
            callback({ code: error.grpcCode, details: error.message });
            return;
          }
          logger.error({ err: error }, "gRPC handler failed");
          const code = error instanceof DomainError ? error.grpcCode : grpc.status.INTERNAL;
          stopTimer?.({ code: grpc.status[code] });
          callback({ code, details: "internal error" });
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
