import { fileURLToPath } from "node:url";
import { type CallContext, GrpcClient, type GrpcClientOptions, type ServerStreamHandler, type UnaryHandler } from "@docex/kit/grpc";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

/** Where the .proto files live: the package root, one level above both src/ and dist/. */
export const PROTO_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The options the generated types in src/generated assume; loading with others breaks them. */
export const PROTO_LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} satisfies protoLoader.Options;

/** What a server needs to serve a service and a client needs to call it. */
export interface ServiceDescriptor<D extends grpc.ServiceDefinition> {
  /** Full name, e.g. "docex.membership.v1.Membership"; also the name its grpc.health.v1 status is kept under. */
  readonly serviceName: string;
  readonly definition: D;
  readonly Client: grpc.ServiceClientConstructor;
}

type MethodName<D> = Extract<keyof { [K in keyof D as string extends K ? never : K]: D[K] }, string>;

/** The request as the server receives it: every field present (proto3 defaults), except `optional` ones. */
export type RequestOf<D, M extends MethodName<D>> = D[M] extends { requestDeserialize: (bytes: Buffer) => infer Req } ? Req : never;

export type ResponseOf<D, M extends MethodName<D>> = D[M] extends { responseDeserialize: (bytes: Buffer) => infer Res } ? Res : never;

/**
 * The handler object a server passes to GrpcServer.addService, keyed by the method names of the .proto.
 * Responses are the complete messages (not the permissive input form) so that a handler cannot forget a field.
 * Server-streaming methods, named in Streams (the generated definition does not tell them apart by type), take
 * a handler that yields its messages.
 */
export type Handlers<D, Streams extends string = never> = {
  [M in MethodName<D>]: M extends Streams
    ? ServerStreamHandler<RequestOf<D, M>, ResponseOf<D, M>>
    : UnaryHandler<RequestOf<D, M>, ResponseOf<D, M>>;
};

/**
 * A promise client: one camelCase method per rpc, plus close(). Requests are the complete messages too,
 * so a caller cannot silently send an empty id; fields declared `optional` in the .proto may be left out.
 * Server-streaming methods (named in Streams) answer an async iterable of their messages instead of a promise.
 */
export type PromiseClient<D, Streams extends string = never> = {
  [M in MethodName<D> as Uncapitalize<M>]: M extends Streams
    ? (request: RequestOf<D, M>, ctx?: CallContext) => AsyncIterable<ResponseOf<D, M>>
    : (request: RequestOf<D, M>, ctx?: CallContext) => Promise<ResponseOf<D, M>>;
} & {
  close(): void;
  /** Opens the channel and waits for the server's first answer (GrpcClient.warm): true when it answered in time. */
  warm(timeoutMs?: number): Promise<boolean>;
};

export function loadService<D extends grpc.ServiceDefinition>(file: string, serviceName: string): ServiceDescriptor<D> {
  const packageDefinition = protoLoader.loadSync(file, { ...PROTO_LOADER_OPTIONS, includeDirs: [PROTO_DIR] });
  const definition = packageDefinition[serviceName];
  if (!definition || "format" in definition) throw new Error(`${file} does not define the service ${serviceName}`);
  // The generated type D comes from the same .proto file, so this is the one place the two are tied together.
  const typed = definition as unknown as D;
  return { serviceName, definition: typed, Client: grpc.makeGenericClientConstructor(typed, serviceName) };
}

/** The service name (certificate CN) of the server of a gRPC service: "docex.document.v1.Document" → "document". */
export function identityOf(serviceName: string): string {
  const name = serviceName.split(".")[1];
  if (!name) throw new Error(`${serviceName} names no docex service`);
  return name;
}

/** Who may call each method of D: service names (certificate CNs), declared next to the handlers. */
export type Callers<D> = { readonly [M in MethodName<D>]: readonly string[] };

/** The breaker of a client that names none: a service that keeps failing is answered at once (503) for 5 s. */
export const DEFAULT_CLIENT_BREAKER = { resetTimeoutMs: 5_000 } as const;

/**
 * Builds a promise client on kit's GrpcClient (deadline, request id, metrics, domain errors), behind a breaker:
 * `DEFAULT_CLIENT_BREAKER` unless the options name another.
 */
export function createPromiseClient<D extends grpc.ServiceDefinition, Streams extends string = never>(
  service: ServiceDescriptor<D>,
  address: string,
  options: GrpcClientOptions,
): PromiseClient<D, Streams> {
  const client = new GrpcClient(service.Client, address, {
    serverName: identityOf(service.serviceName),
    breaker: DEFAULT_CLIENT_BREAKER,
    ...options,
  });
  const calls: Record<string, (request: unknown, ctx?: CallContext) => unknown> = {};
  for (const [method, definition] of Object.entries(service.definition)) {
    if (definition.requestStream) throw new Error(`${service.serviceName}/${method}: client-streaming methods are not supported`);
    calls[method.charAt(0).toLowerCase() + method.slice(1)] = definition.responseStream
      ? (request, ctx) => client.serverStream(method, request, ctx)
      : (request, ctx) => client.unary(method, request, ctx);
  }
  return { ...calls, close: () => client.close(), warm: (timeoutMs?: number) => client.warm(timeoutMs) } as unknown as PromiseClient<
    D,
    Streams
  >;
}
