import { UpstreamError } from "./errors.js";

/**
 * Postgres' codes of a connection that went away or was refused: admin shutdown, crash shutdown, cannot connect
 * now (starting up, shutting down), too many connections (the pool reconnecting all at once), connection failures.
 */
const LOST_CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"]);
/** What the socket under a database connection says when the connection is cut or refused. */
const SOCKET_FAILURE_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
/**
 * node-postgres' words for a query on a connection that broke or closed under it: the socket's end, the server's
 * notice, and a client asked to query after its connection failed or closed ("... and is not queryable").
 */
const LOST_CONNECTION_MESSAGE = /Connection terminated|terminating connection|is not queryable/i;
/**
 * A prepared statement (kit `Prepared`) whose result columns a migration changed under a running release: Sql drops
 * the connection that held it, so the same request again prepares it afresh.
 */
const STALE_PREPARED_STATEMENT = /cached plan must not change result type/i;

type ErrorShape = { name?: string; code?: string; parent?: unknown; original?: unknown; message?: string };

/**
 * A failure because the database connection dropped or was refused (a failover, a restart, a cut connection), or
 * held a prepared statement that a migration made stale: the server's trouble, not the client's (503 with
 * Retry-After, not a bare 500), and gone once the database is back or the connection replaced. Sequelize wraps
 * the driver's error (`parent`, `original`); socket codes count only under a Sequelize error,
 * so that a refused connection to anything else is not taken for the database.
 */
export function isTransientDatabaseFailure(error: unknown): boolean {
  let underSequelize = false;
  for (let current = error as ErrorShape | undefined, depth = 0; current && depth < 5; depth++) {
    if (typeof current.name === "string" && current.name.startsWith("Sequelize")) {
      underSequelize = true;
      if (/^Sequelize(Connection|ConnectionAcquireTimeout|HostNotReachable|ConnectionRefused|ConnectionTimedOut)/.test(current.name))
        return true;
    }
    if (typeof current.code === "string") {
      if (LOST_CONNECTION_CODES.has(current.code)) return true;
      if (underSequelize && SOCKET_FAILURE_CODES.has(current.code)) return true;
    }
    if (typeof current.message === "string" && LOST_CONNECTION_MESSAGE.test(current.message)) return true;
    if (typeof current.message === "string" && STALE_PREPARED_STATEMENT.test(current.message)) return true;
    current = (current.parent ?? current.original) as ErrorShape | undefined;
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
    if (typeof current.code === "string" && CONFLICT_CODES.has(current.code)) return true;
    current = (current.parent ?? current.original) as ErrorShape | undefined;
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
