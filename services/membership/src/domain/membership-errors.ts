import { ConflictError, DomainError, NotFoundError } from "@docex/kit/errors";
import { status as GrpcStatus } from "@grpc/grpc-js";

/** 409 over HTTP, ALREADY_EXISTS over gRPC (membership.proto: CreateOrganization with a taken humanized_id). */
export class AlreadyExistsError extends DomainError {
  override readonly status = 409;
  override readonly grpcCode = GrpcStatus.ALREADY_EXISTS;
  override readonly title = "Conflict";
}

export function organizationNotFound(): NotFoundError {
  return new NotFoundError("No organization with this id or humanized id is visible to you.", "organization_not_found");
}

export function humanizedIdTaken(humanizedId: string): AlreadyExistsError {
  return new AlreadyExistsError("humanized_id_taken", `The humanized id ${humanizedId} is taken.`, [
    { path: "humanized_id", message: "Another organization has this humanized id." },
  ]);
}

export function lastOwner(message: string, errors: { path: string; message: string }[]): ConflictError {
  return new ConflictError(message, "last_owner", errors);
}
