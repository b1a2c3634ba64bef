import { createHash } from "node:crypto";
import type { Sequelize } from "sequelize";
import { inChildSpan } from "../tracing/spans.js";

/**
 * A database transaction as the domain sees it: something to pass back to the store, and work to do once it has
 * committed. `Sql.transaction` makes them; a Sequelize `Transaction` is one too.
 */
export interface Tx {
  afterCommit(hook: () => unknown): void;
}

/**
 * A statement that each connection parses once and Postgres then keeps as a named prepared statement: later runs
 * send only its parameters, and after five runs Postgres plans it once for all values (a generic plan) if that
 * plan costs no more than the plans made for each run's values. For the hot statements whose best plan does not
 * depend on their values (a row by its key, an insert, an update of one row): parsing and planning were about
 * two fifths of Postgres' time per statement under the stack benchmark (bench/REPORT.md, "prepared statements").
 * Not for searches over skewed data, where one plan for all values can be a bad one.
 *
 * The name is a hash of the text, so a release that changes a statement uses a new name. A statement must name
 * its result columns (no `*`): a migration that changes them under a running release would otherwise fail it
 * with "cached plan must not change result type" (that connection is then dropped, and the request answers 503).
 */
export class Prepared {
  readonly name: string;

  constructor(readonly text: string) {
    this.name = `docex_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
  }
}

/** `text` as a named prepared statement (see `Prepared`); made once, where the statement is defined. */
export function prepared(text: string): Prepared {
  return new Prepared(text);
}

type Statement = string | Prepared;

type PgResult = { rows: object[] } | Array<{ rows?: object[] }>;

/** What Sql needs of a pg client: the one Sequelize's pool lends, or the one a transaction holds. */
interface PgConnection {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResult>;
  /** Set on a connection the pool must not lend again (as Sequelize's own queries mark it). */
  _invalid?: boolean;
}

/** Sequelize's parts that Sql uses: its pool, and the dialect's error mapping. */
interface SequelizeInternals {
  connectionManager: { getConnection(): Promise<PgConnection>; releaseConnection(connection: PgConnection): Promise<void> };
  dialect: { Query: new (connection: PgConnection, sequelize: Sequelize, options: object) => { formatError(error: Error): Error } };
}

/** Errors after which a connection is not lent again (those Sequelize's postgres query marks). */
const BROKEN_CONNECTION = /Unable to set non-blocking to true|SSL SYSCALL error: EOF detected|Local: Authentication failure/i;

/** A prepared statement whose result columns a migration changed: it fails on this connection until it closes. */
const STALE_PREPARED_STATEMENT = /cached plan must not change result type/i;

/**
 * Raw SQL with bind parameters; every result is a plain row object. The stores of every service query through it.
 *
 * Connections and transactions are Sequelize's (its pool, `sequelize.transaction`, `afterCommit`), but a statement
 * goes to the pg client directly: `sequelize.query` spent twice the CPU per statement in this process and about
 * 1.5 times in Postgres (bench/REPORT.md, "the kit's Sql on the pg client"). Everything a caller sees stays as
 * Sequelize made it: errors are Sequelize's (`UniqueConstraintError`, `ForeignKeyConstraintError`,
 * `DatabaseError` with the pg error as `original`/`parent`), a NUL in a string parameter is sent as `\0`, and a
 * statement without parameters goes by the simple protocol (several statements in one string).
 */
export class Sql {
  private readonly internals: SequelizeInternals;

  constructor(readonly sequelize: Sequelize) {
    this.internals = sequelize as unknown as SequelizeInternals;
  }

  async rows<T extends object>(sql: Statement, bind: unknown[] = [], tx?: Tx): Promise<T[]> {
    const result = await this.query(sql, bind, tx);
    // Several statements (simple protocol) answer one result each: their rows in order, as Sequelize joins them.
    return (Array.isArray(result) ? result.flatMap((each) => each.rows ?? []) : result.rows) as T[];
  }

  async one<T extends object>(sql: Statement, bind: unknown[] = [], tx?: Tx): Promise<T | undefined> {
    return (await this.rows<T>(sql, bind, tx))[0];
  }

  /** A statement whose rows nobody reads (writes, deletes). */
  async run(sql: Statement, bind: unknown[] = [], tx?: Tx): Promise<void> {
    await this.query(sql, bind, tx);
  }

  private async query(sql: Statement, bind: unknown[], tx: Tx | undefined) {
    // Sql's transaction or a Sequelize one: both hold their connection and say when they have finished.
    const transaction = tx as unknown as { connection?: PgConnection; finished?: string } | undefined;
    // As sequelize.query: a finished transaction's connection is back in the pool, lent to someone else.
    if (transaction?.finished) throw new Error(`${transaction.finished} has been called on this transaction; it can no longer be used`);
    const held = transaction?.connection;
    if (transaction && !held) throw new Error("the transaction has no connection");
    const connection = held ?? (await this.internals.connectionManager.getConnection());
    try {
      if (sql instanceof Prepared) return await connection.query({ name: sql.name, text: sql.text, values: bind.map(withoutNul) });
      return bind.length === 0 ? await connection.query(sql) : await connection.query(sql, bind.map(withoutNul));
    } catch (error) {
      throw this.sequelizeError(connection, error, typeof sql === "string" ? sql : sql.text, bind);
    } finally {
      if (!held) await this.internals.connectionManager.releaseConnection(connection);
    }
  }

  /** The error as `sequelize.query` would have thrown it, marking a broken connection as it does. */
  private sequelizeError(connection: PgConnection, error: unknown, sql: string, bind: unknown[]): unknown {
    if (!(error instanceof Error)) return error;
    const code = (error as { code?: unknown }).code;
    if (code === "ECONNRESET" || BROKEN_CONNECTION.test(error.message) || error.message === "Query read timeout")
      connection._invalid = true;
    // Its prepared statements go with the connection; a new one prepares them against the tables as they are now.
    if (STALE_PREPARED_STATEMENT.test(error.message)) connection._invalid = true;
    Object.assign(error, { sql, parameters: bind });
    return new this.internals.dialect.Query(connection, this.sequelize, {}).formatError(error);
  }

  /**
   * Runs `work` in a transaction on a connection of the pool, and then the transaction's `afterCommit` hooks in order.
   * With `asyncCommit` the commit returns before its WAL reaches the disk (synchronous_commit off): no second flush
   * on a request's path, at the price that a server crash within a few hundred milliseconds may lose this transaction
   * (never a part of it, and never one committed before). `settings` are further `SET LOCAL`s for this transaction
   * alone (names and values of letters, digits and `_`), sent with its BEGIN.
   *
   * BEGIN and COMMIT go to the pg client as every statement does: `sequelize.transaction` spent 90–125 µs more of
   * this process's CPU per transaction, and a round trip more with `asyncCommit` (bench/REPORT.md, "transactions on
   * the pg client"). Errors are Sequelize's, as for any statement.
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const settings = { ...(options.asyncCommit ? { synchronous_commit: "off" } : {}), ...options.settings };
    const begin = beginOf(settings);
    // In a trace, the transaction is a span of its own: its statements, and the wait for a connection and the commit.
    return inChildSpan(
      "db.transaction",
      {
        attributes: {
          "db.system.name": "postgresql",
          "db.namespace": this.sequelize.config.database,
          "docex.async_commit": settings.synchronous_commit === "off",
        },
      },
      () => this.inTransaction(work, begin),
    );
  }

  private async inTransaction<T>(work: (tx: Tx) => Promise<T>, begin: string): Promise<T> {
    const connection = await this.internals.connectionManager.getConnection();
    const tx = new SqlTransaction(connection);
    let result: T;
    try {
      await this.statement(connection, begin);
      try {
        result = await work(tx);
      } catch (error) {
        tx.finished = "rollback";
        // A ROLLBACK that fails leaves the connection in an unknown state: it is not lent again.
        await connection.query("ROLLBACK").catch(() => {
          connection._invalid = true;
        });
        throw error;
      }
      tx.finished = "commit";
      // A COMMIT that fails has ended the transaction all the same (Postgres rolls it back).
      await this.statement(connection, "COMMIT");
    } finally {
      tx.finished ??= "rollback";
      await this.internals.connectionManager.releaseConnection(connection);
    }
    for (const hook of tx.afterCommitHooks) await hook();
    return result;
  }

  private async statement(connection: PgConnection, text: string): Promise<void> {
    try {
      await connection.query(text);
    } catch (error) {
      throw this.sequelizeError(connection, error, text, []);
    }
  }
}

export interface TransactionOptions {
  /** Commit without waiting for the WAL flush (synchronous_commit off). */
  asyncCommit?: boolean;
  /** `SET LOCAL`s for this transaction alone: names and values of letters, digits and `_`. */
  settings?: Record<string, string>;
}

/** A transaction of `Sql`: its connection, until it has finished, and the hooks to run after its commit. */
class SqlTransaction implements Tx {
  /** Set when the transaction ends (as Sequelize's own says it): its statements then throw. */
  finished: "commit" | "rollback" | undefined;
  readonly afterCommitHooks: Array<() => unknown> = [];

  constructor(readonly connection: PgConnection) {}

  afterCommit(hook: () => unknown): void {
    this.afterCommitHooks.push(hook);
  }
}

const SETTING = /^[a-z0-9_]+$/i;

/** BEGIN and the transaction's `SET LOCAL`s, one round trip (the simple protocol takes several statements). */
function beginOf(settings: Record<string, string>): string {
  const sets = Object.entries(settings).map(([name, value]) => {
    if (!SETTING.test(name) || !SETTING.test(value)) throw new Error(`not a transaction setting: ${name} = ${value}`);
    return `SET LOCAL ${name} = ${value}`;
  });
  return ["BEGIN", ...sets].join("; ");
}

/** What Sequelize sends for a string parameter: a NUL byte (which Postgres refuses in text) as the two characters `\0`. */
function withoutNul(value: unknown): unknown {
  return typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\\0") : value;
}

/** Postgres' unique_violation, for answers that turn a duplicate into 409. */
export function isUniqueViolation(error: unknown): boolean {
  const original = (error as { original?: { code?: string }; parent?: { code?: string } }) ?? {};
  return original.original?.code === "23505" || original.parent?.code === "23505";
}
