import { status as GrpcStatus } from "@grpc/grpc-js";

export interface FieldError {
  path: string;
  message: string;
}

/**
 * A failure the caller can act on. Each subclass maps to one HTTP status and one gRPC
 * code; the two edges (problem+json and gRPC) translate it in exactly one place each.
 */
export class DomainError extends Error {
  readonly status: number = 500;
  readonly grpcCode: GrpcStatus = GrpcStatus.INTERNAL;
  readonly title: string = "Internal Server Error";

  constructor(
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  override readonly status = 400;
  override readonly grpcCode = GrpcStatus.INVALID_ARGUMENT;
  override readonly title = "Bad Request";
  constructor(message: string, errors: FieldError[] = [], code = "validation_failed") {
    super(code, message, errors);
  }
}

export class UnauthorizedError extends DomainError {
  override readonly status = 401;
  override readonly grpcCode = GrpcStatus.UNAUTHENTICATED;
  override readonly title = "Unauthorized";
  constructor(message = "A valid access token is required.", code = "unauthorized", extra: Record<string, unknown> = {}) {
    super(code, message, [], extra);
  }
}

export class ForbiddenError extends DomainError {
  override readonly status = 403;
  override readonly grpcCode = GrpcStatus.PERMISSION_DENIED;
  override readonly title = "Forbidden";
  constructor(message = "Your role does not allow this operation.", code = "forbidden", errors: FieldError[] = []) {
    super(code, message, errors);
  }
}

export class NotFoundError extends DomainError {
  override readonly status = 404;
  override readonly grpcCode = GrpcStatus.NOT_FOUND;
  override readonly title = "Not Found";
  constructor(message = "The resource does not exist.", code = "not_found") {
    super(code, message);
  }
}

/** A lookup's answer, or undefined where it answered NotFoundError: "no such thing" is an answer, not a failure. */
export async function undefinedIfNotFound<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

export class MethodNotAllowedError extends DomainError {
  override readonly status = 405;
  override readonly grpcCode = GrpcStatus.UNIMPLEMENTED;
  override readonly title = "Method Not Allowed";
  constructor(readonly allowed: string[]) {
    super("method_not_allowed", `This path accepts ${allowed.join(", ")}.`);
  }
}

export class ConflictError extends DomainError {
  override readonly status = 409;
  override readonly grpcCode = GrpcStatus.FAILED_PRECONDITION;
  override readonly title = "Conflict";
  constructor(message: string, code = "conflict", errors: FieldError[] = [], extra: Record<string, unknown> = {}) {
    super(code, message, errors, extra);
  }
}

export class PayloadTooLargeError extends DomainError {
  override readonly status = 413;
  override readonly grpcCode = GrpcStatus.RESOURCE_EXHAUSTED;
  override readonly title = "Payload Too Large";
  constructor(message = "The request body is larger than this endpoint accepts.") {
    super("payload_too_large", message);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  override readonly status = 415;
  override readonly grpcCode = GrpcStatus.INVALID_ARGUMENT;
  override readonly title = "Unsupported Media Type";
  constructor(message = "The request body must be application/json.", code = "unsupported_media_type") {
    super(code, message);
  }
}

export class RateLimitedError extends DomainError {
  override readonly status = 429;
  override readonly grpcCode = GrpcStatus.RESOURCE_EXHAUSTED;
  override readonly title = "Too Many Requests";
  constructor(
    readonly retryAfterSeconds: number,
    message = "Too many requests; try again later.",
  ) {
    super("rate_limited", message);
  }
}

const UPSTREAM_TITLES = { 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" } as const;

export class UpstreamError extends DomainError {
  override readonly grpcCode = GrpcStatus.UNAVAILABLE;
  override readonly title: string;
  constructor(
    override readonly status: 502 | 503 | 504,
    message: string,
    code: string,
  ) {
    super(code, message);
    this.title = UPSTREAM_TITLES[status];
  }
}

/** Maps a gRPC status received from another service back to the domain error it stands for. */
export function domainErrorFromGrpc(code: GrpcStatus, details: string): DomainError {
  switch (code) {
    case GrpcStatus.INVALID_ARGUMENT:
      return new ValidationError(details);
    case GrpcStatus.NOT_FOUND:
      return new NotFoundError(details);
    case GrpcStatus.PERMISSION_DENIED:
      return new ForbiddenError(details);
    case GrpcStatus.UNAUTHENTICATED:
      return new UnauthorizedError(details);
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return new ConflictError(details);
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new UpstreamError(504, details, "upstream_timeout");
    case GrpcStatus.UNAVAILABLE:
      return new UpstreamError(503, details, "upstream_unavailable");
    default:
      return new UpstreamError(502, details, "upstream_failed");
  }
}

/**
 * The failure of a gRPC call to `service` (e.g. "document") as its caller's client may see it:
 * our services' own answers (invalid, not found, forbidden, conflict) keep their message;
 * transport failures (unavailable, deadline, anything else) name the service only, never its
 * host and port or grpc-js's diagnostics ("14 UNAVAILABLE: ... 127.0.0.1:9081"). The original
 * stays on `cause`, for the logs.
 */
export function domainErrorFromGrpcCall(failure: { code?: number; details?: string; message?: string }, service: string): DomainError {
  const code = typeof failure.code === "number" ? failure.code : GrpcStatus.UNKNOWN;
  let error: DomainError;
  switch (code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      error = new UpstreamError(504, `The ${service} service did not answer in time.`, "upstream_timeout");
      break;
    case GrpcStatus.UNAVAILABLE:
      error = new UpstreamError(503, `The ${service} service is unavailable.`, "upstream_unavailable");
      break;
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.NOT_FOUND:
    case GrpcStatus.PERMISSION_DENIED:
    case GrpcStatus.UNAUTHENTICATED:
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return domainErrorFromGrpc(code, failure.details || failure.message || "");
    default:
      error = new UpstreamError(502, `The ${service} service failed to answer.`, "upstream_failed");
  }
  Object.defineProperty(error, "cause", { value: failure, enumerable: false });
  return error;
}

/** "document" for docex.document.v1.Document: how problems name a service behind a gRPC client. */
export function serviceLabelOf(grpcServiceName: string | undefined): string {
  const parts = (grpcServiceName ?? "").split(".");
  if (parts[0] === "docex" && parts[1]) return parts[1];
  return parts.at(-1)?.toLowerCase() || "dependency";
}
