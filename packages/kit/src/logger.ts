import { type Logger, pino } from "pino";
import { DatabaseError } from "./db/errors.js";
import { activeTraceIds } from "./tracing/spans.js";
import { redactUrlSecrets } from "./tracing/url-secrets.js";

export type { Logger };

/** Paths whose values are never written: credentials, tokens, keys, one-time secrets. */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-totp"]',
  'req.headers["x-otp-trusted-source"]',
  'req.headers["x-service-signature"]',
  "headers.authorization",
  "*.password",
  "*.token",
  "*.access_token",
  "*.refresh_token",
  "*.id_token",
  "*.otp_trusted_source",
  "*.pin",
  "*.secret",
  "*.key",
  "*.signing_key",
  "*.private_key",
  "*.privateKey",
  "*.invitation_token",
];

interface DatabaseErrorFields {
  code?: unknown;
  table?: unknown;
  constraint?: unknown;
  column?: unknown;
  schema?: unknown;
  severity?: unknown;
  routine?: unknown;
}

/** The Postgres error inside `error` (itself, or the driver's error under a kit `DatabaseError`), if it is one. */
function postgresErrorOf(error: unknown): DatabaseErrorFields | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const candidate = error as DatabaseErrorFields;
  if (typeof candidate.code === "string" && /^[0-9A-Z]{5}$/.test(candidate.code) && typeof candidate.severity === "string")
    return candidate;
  return error instanceof DatabaseError ? postgresErrorOf(error.cause) : undefined;
}

const isDatabaseError = (error: unknown) => error instanceof DatabaseError;

function causedByDatabase(error: unknown, depth = 0): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause === undefined || cause === null || depth > 5) return false;
  return Boolean(postgresErrorOf(cause)) || isDatabaseError(cause) || causedByDatabase(cause, depth + 1);
}

/**
 * The `err` serializer of every log line. A database error is logged as its SQL state, table,
 * constraint and column only: Postgres's message and detail quote values (`Key (email)=(…)`,
 * `invalid input syntax for type uuid: "…"`), and the driver's errors under the kit's `DatabaseError` quote
 * them too, none of which belongs in a log. Other errors as pino's.
 */
export function serializeError(error: unknown): unknown {
  const database = postgresErrorOf(error);
  if (!database && !isDatabaseError(error)) {
    if (!causedByDatabase(error)) return pino.stdSerializers.err(error as Error);
    // pino's serializer would append the causes' messages and stacks; the database one must not be.
    const own = error as { name?: unknown; message?: unknown; stack?: unknown; cause?: unknown };
    return {
      type: String(own.name ?? "Error"),
      message: String(own.message ?? ""),
      stack: String(own.stack ?? ""),
      cause: serializeError(own.cause),
    };
  }
  const stack = typeof (error as { stack?: unknown }).stack === "string" ? String((error as { stack: string }).stack) : "";
  return {
    type: String((error as { name?: unknown }).name ?? "DatabaseError"),
    message: database ? `database error ${String(database.code)}` : "database error",
    sql_state: database?.code,
    table: database?.table,
    constraint: database?.constraint,
    column: database?.column,
    schema: database?.schema,
    routine: database?.routine,
    // The frames only: the first line repeats the message.
    stack: stack.split("\n").slice(1).join("\n"),
  };
}

/** A one-line description of `error` for places that store it as text (a dead letter's header): a database error by its SQL state, table and constraint only. */
export function errorSummaryOf(error: unknown): string {
  const database = postgresErrorOf(error);
  if (database) {
    const where = [
      database.table && `table ${String(database.table)}`,
      database.constraint && `constraint ${String(database.constraint)}`,
    ].filter(Boolean);
    return `database error ${String(database.code)}${where.length ? ` (${where.join(", ")})` : ""}`;
  }
  if (isDatabaseError(error)) return "database error";
  return error instanceof Error ? error.message : String(error);
}

export function createLogger(service: string, level = "info", destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      // The trace and span of the work the line is about, so that a log line leads to its trace.
      mixin: activeTraceIds,
      serializers: { err: serializeError },
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      // Fields redact by path; a URL with a secret in its query can stand anywhere (a message, an error's text or
      // stack, a field no path names), so the finished line is searched for one as well.
      hooks: { streamWrite: redactUrlSecrets },
    },
    destination,
  );
}
