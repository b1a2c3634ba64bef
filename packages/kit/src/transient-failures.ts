import { UpstreamError } from "./errors.js";

const LOST_CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "08000", "08001", "08003", "08006"]);

/**
 * A failure because the database connection dropped (a failover, a restart, a cut connection): the server's
 * trouble, not the client's (503 with Retry-After, not a bare 500), and gone once the database is back.
 */
export function isTransientDatabaseFailure(error: unknown): boolean {
  for (
    let current = error as { name?: string; code?: string; parent?: unknown; original?: unknown; message?: string } | undefined, depth = 0;
    current && depth < 4;
    depth++
  ) {
    if (
      typeof current.name === "string" &&
      /^Sequelize(Connection|ConnectionAcquireTimeout|HostNotReachable|ConnectionRefused)/.test(current.name)
    )
      return true;
    if (typeof current.code === "string" && LOST_CONNECTION_CODES.has(current.code)) return true;
    if (typeof current.message === "string" && /Connection terminated|terminating connection/i.test(current.message)) return true;
    current = (current.parent ?? current.original) as typeof current;
  }
  return false;
}

/**
 * A failure that waiting cures: the database connection dropped, or a service called is unreachable or did not
 * answer in time (503, 504). An event whose handling failed this way is not a poison event.
 */
export function isTransientFailure(error: unknown): boolean {
  return isTransientDatabaseFailure(error) || (error instanceof UpstreamError && (error.status === 503 || error.status === 504));
}
