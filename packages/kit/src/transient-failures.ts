import {
  ConcurrencyConflictError,
  DatabaseError,
  DatabaseUnavailableError,
  LOST_CONNECTION_CODES,
  LOST_CONNECTION_MESSAGE,
  SOCKET_FAILURE_CODES,
  STALE_PREPARED_STATEMENT,
} from "./db/errors.js";
import { UpstreamError } from "./errors.js";

type ErrorShape = { name?: string; code?: string; cause?: unknown; message?: string };

/**
 * A failure because the database connection dropped or was refused (a failover, a restart, a cut connection), or
 * held a prepared statement that a migration made stale: the server's trouble, not the client's (503 with
 * Retry-After, not a bare 500), and gone once the database is back or the connection replaced. `Sql` says so with
 * `DatabaseUnavailableError`; the driver's own errors (a pg client of the migrations, say) are recognised by their
 * code or words, and socket codes count only under a kit `DatabaseError`, so that a refused connection to anything
 * else is not taken for the database.
 */
export function isTransientDatabaseFailure(error: unknown): boolean {
  let underDatabaseError = false;
  for (let current = error as ErrorShape | undefined, depth = 0; current && depth < 5; depth++) {
    if (current instanceof DatabaseUnavailableError) return true;
    if (current instanceof DatabaseError) underDatabaseError = true;
    if (typeof current.code === "string") {
      if (LOST_CONNECTION_CODES.has(current.code)) return true;
      if (underDatabaseError && SOCKET_FAILURE_CODES.has(current.code)) return true;
    }
    if (typeof current.message === "string" && LOST_CONNECTION_MESSAGE.test(current.message)) return true;
    if (typeof current.message === "string" && STALE_PREPARED_STATEMENT.test(current.message)) return true;
    current = (typeof current === "object" ? current.cause : undefined) as ErrorShape | undefined;
  }
  return false;
}

/** Postgres' codes of a transaction aborted for another's sake: deadlock_detected, serialization_failure. */
const CONFLICT_CODES = new Set(["40P01", "40001"]);

/**
 * A transaction that Postgres aborted because it collided with a concurrent one (a deadlock, or a serialization
 * failure): nothing of it was applied, and the same request again will most likely go through.
 */
export function isConcurrencyConflict(error: unknown): boolean {
  for (let current = error as ErrorShape | undefined, depth = 0; current && depth < 5; depth++) {
    if (current instanceof ConcurrencyConflictError) return true;
    if (typeof current.code === "string" && CONFLICT_CODES.has(current.code)) return true;
    current = (typeof current === "object" ? current.cause : undefined) as ErrorShape | undefined;
  }
  return false;
}

/**
 * A failure that waiting cures: the database connection dropped, a transaction collided with a concurrent one, or
 * a service called is unreachable or did not answer in time (503, 504). An event whose handling failed this way is
 * not a poison event.
 */
export function isTransientFailure(error: unknown): boolean {
  return (
    isTransientDatabaseFailure(error) ||
    isConcurrencyConflict(error) ||
    (error instanceof UpstreamError && (error.status === 503 || error.status === 504))
  );
}
