/**
 * The failures of a statement as the kit names them, made from the driver's error by `databaseErrorOf`. Callers
 * catch the class that concerns them (a duplicate key, a row referred to that does not exist); the edges turn
 * `DatabaseUnavailableError` and `ConcurrencyConflictError` into 503 with Retry-After (`isTransientFailure`), and
 * anything else stays a 500. The driver's error is the `cause`: its message and detail quote values, so the logger
 * writes only the SQL state, table, constraint and column (logger.ts).
 */
export class DatabaseError extends Error {
  /** Postgres' SQLSTATE, when the server answered with one. */
  readonly code: string | undefined;
  readonly table: string | undefined;
  readonly constraint: string | undefined;
  readonly column: string | undefined;
  readonly schema: string | undefined;
  readonly routine: string | undefined;

  constructor(
    message: string,
    cause: unknown,
    /** The statement's text (never its parameters). */
    readonly sql?: string,
  ) {
    super(message, { cause });
    this.name = new.target.name;
    const fields = (typeof cause === "object" && cause !== null ? cause : {}) as Record<string, unknown>;
    const text = (key: string) => (typeof fields[key] === "string" ? (fields[key] as string) : undefined);
    this.code = text("code") && SQLSTATE.test(text("code")!) ? text("code") : undefined;
    this.table = text("table");
    this.constraint = text("constraint");
    this.column = text("column");
    this.schema = text("schema");
    this.routine = text("routine");
  }
}

/** Class 23: a row broke a constraint (not null, check, exclusion; the two below have their own classes). */
export class ConstraintViolationError extends DatabaseError {}

/** 23505: a unique index already holds the key (answered 409 by the callers that expect it). */
export class UniqueViolationError extends ConstraintViolationError {}

/** 23503: a row refers to one that does not exist, or one still referred to was deleted. */
export class ForeignKeyViolationError extends ConstraintViolationError {}

/**
 * 40001 serialization_failure, 40P01 deadlock_detected: Postgres aborted the transaction for a concurrent one's sake;
 * nothing of it was applied and the same work again will most likely go through.
 */
export class ConcurrencyConflictError extends DatabaseError {}

/** 57014 query_canceled: a statement timeout, or a cancel request. */
export class QueryCanceledError extends DatabaseError {}

/** Class 22: a value Postgres cannot take (`invalid input syntax for type uuid`, a string too long, a number out of range). */
export class InvalidDataError extends DatabaseError {}

/**
 * The database could not be reached or the connection broke: refused, cut, terminated by the server (a failover,
 * a restart), no connection free in time, or a prepared statement a migration made stale on this connection. The
 * connection, if any, is not lent again; the same work later most likely succeeds.
 */
export class DatabaseUnavailableError extends DatabaseError {}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Postgres' codes of a connection that went away or was refused: admin shutdown, crash shutdown, cannot connect
 * now (starting up, shutting down), too many connections (the pool reconnecting all at once), connection failures.
 */
export const LOST_CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"]);

/** What the socket under a database connection says when the connection is cut or refused. */
export const SOCKET_FAILURE_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
]);

/**
 * node-postgres' words for a query on a connection that broke or closed under it: the socket's end, the server's
 * notice, a client asked to query after its connection failed or closed ("... and is not queryable"), and the
 * pool's wait for a free connection running out.
 */
export const LOST_CONNECTION_MESSAGE =
  /Connection terminated|terminating connection|is not queryable|timeout exceeded when trying to connect|Query read timeout/i;

/** A prepared statement whose result columns a migration changed: it fails on this connection until it closes. */
export const STALE_PREPARED_STATEMENT = /cached plan must not change result type/i;

/** The kit's error for what the driver threw running `sql` (an error that is one already is returned as it is). */
export function databaseErrorOf(error: unknown, sql?: string): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && SQLSTATE.test(code)) {
    if (code === "23505") return new UniqueViolationError(message, error, sql);
    if (code === "23503") return new ForeignKeyViolationError(message, error, sql);
    if (code.startsWith("23")) return new ConstraintViolationError(message, error, sql);
    if (code === "40001" || code === "40P01") return new ConcurrencyConflictError(message, error, sql);
    if (code === "57014") return new QueryCanceledError(message, error, sql);
    if (code.startsWith("22")) return new InvalidDataError(message, error, sql);
    if (LOST_CONNECTION_CODES.has(code) || STALE_PREPARED_STATEMENT.test(message)) return new DatabaseUnavailableError(message, error, sql);
    return new DatabaseError(message, error, sql);
  }
  if ((typeof code === "string" && SOCKET_FAILURE_CODES.has(code)) || LOST_CONNECTION_MESSAGE.test(message))
    return new DatabaseUnavailableError(message, error, sql);
  return new DatabaseError(message, error, sql);
}

/** Postgres' unique_violation, for answers that turn a duplicate into 409. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof UniqueViolationError;
}
