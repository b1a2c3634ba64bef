import { ConflictError, DomainError, type FieldError, ForbiddenError, NotFoundError, PayloadTooLargeError } from "@docex/kit/errors";
import { status as GrpcStatus } from "@grpc/grpc-js";

/** 404 for entries of an upload whose queue does not exist or is not the caller's to see, naming each entry. */
export class QueueNotFoundError extends DomainError {
  override readonly status = 404;
  override readonly grpcCode = GrpcStatus.NOT_FOUND;
  override readonly title = "Not Found";
  constructor(message: string, errors: FieldError[] = []) {
    super("queue_not_found", message, errors);
  }
}

export function registerNotFound(registerId: string): NotFoundError {
  return new NotFoundError(`No register ${registerId}.`, "register_not_found");
}

export function queueNotFound(queueRef: string): QueueNotFoundError {
  return new QueueNotFoundError(`No queue ${queueRef}.`);
}

export function tooManyItems(count: number, limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`An upload carries at most ${limit} items in all; this one has ${count}.`);
}

export function notAllowedToUpload(errors: FieldError[]): ForbiddenError {
  return new ForbiddenError("Your role does not allow managing the registers of this queue.", "forbidden", errors);
}

/** 409 naming the duplicated values, at most a few of them, with the path of each item. */
export function duplicateValues(message: string, duplicates: { path: string; value: string; message: string }[]): ConflictError {
  return new ConflictError(
    message,
    "duplicate_value",
    duplicates.map(({ path, message }) => ({ path, message })),
    { values: [...new Set(duplicates.map((duplicate) => duplicate.value))] },
  );
}
