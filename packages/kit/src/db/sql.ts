import { createHash } from "node:crypto";
import type pg from "pg";
import { inChildSpan } from "../tracing/spans.js";
import { DatabaseUnavailableError, databaseErrorOf } from "./errors.js";

/**
 * A database transaction as the domain sees it: something to pass back to the store, and work to do once it has
 * committed. `Sql.transaction` makes them.
 */
export interface Tx {
  afterCommit(hook: () => unknown): void;
}

/**
 * The one port through which a domain opens transactions (its unit of work): `Sql` is one, and a store that owns
 * its transactions' shape may offer the same method.
 */
export interface UnitOfWork {
  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
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

/**
 * Raw SQL with bind parameters on a pg.Pool; every result is a plain row object. The stores of every service query
 * through it, and the domains open their transactions with it (`UnitOfWork`).
 *
 * A statement goes to a pg client of the pool, or to the one its transaction holds: `sequelize.query`, which it
 * replaced, spent twice the CPU per statement in this process and about 1.5 times in Postgres (bench/REPORT.md,
 * "the kit's Sql on the pg client"). Errors are the kit's (`UniqueViolationError`, `ForeignKeyViolationError`,
 * `ConcurrencyConflictError`, `DatabaseUnavailableError`, …: db/errors.ts) with the pg error as `cause`; a NUL in a
 * string parameter is sent as `\0` (as Sequelize did), and a statement without parameters goes by the simple
 * protocol (several statements in one string).
 */
export class Sql implements UnitOfWork {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    /** The database's name, for the spans of its transactions. */
    readonly database: string,
  ) {}

  async rows<T extends object>(sql: Statement, bind: unknown[] = [], tx?: Tx): Promise<T[]> {
    const result = await this.query(sql, bind, tx);
    // Several statements (simple protocol) answer one result each: their rows in order.
    return (Array.isArray(result) ? result.flatMap((each) => each.rows ?? []) : result.rows) as T[];
  }

  async one<T extends object>(sql: Statement, bind: unknown[] = [], tx?: Tx): Promise<T | undefined> {
    return (await this.rows<T>(sql, bind, tx))[0];
  }

  /** A statement whose rows nobody reads (writes, deletes). */
  async run(sql: Statement, bind: unknown[] = [], tx?: Tx): Promise<void> {
    await this.query(sql, bind, tx);
  }

  /** Ends the pool: idle connections close at once, lent ones when they come back. Once only; later calls wait for the same. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }

  /** Whether `close` was called. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  private async query(sql: Statement, bind: unknown[], tx: Tx | undefined): Promise<PgResult> {
    if (tx !== undefined && !(tx instanceof SqlTransaction)) throw new Error("not a transaction of Sql");
    // A finished transaction's connection is back in the pool, lent to someone else.
    if (tx?.finished) throw new Error(`${tx.finished} has been called on this transaction; it can no longer be used`);
    const client = tx?.client ?? (await this.acquire());
    let broken = false;
    try {
      return await send(client, sql, bind);
    } catch (error) {
      const failure = databaseErrorOf(error, typeof sql === "string" ? sql : sql.text);
      // A broken connection, or one whose prepared statements a migration made stale, is not lent again: a new
      // one prepares them against the tables as they are now.
      if (failure instanceof DatabaseUnavailableError) {
        broken = true;
        if (tx) tx.broken = true;
      }
      throw failure;
    } finally {
      if (!tx) client.release(broken || undefined);
    }
  }

  /** A connection of the pool; failing to get one (refused, none free in time) is the database being unavailable. */
  private async acquire(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw new DatabaseUnavailableError(error instanceof Error ? error.message : String(error), error);
    }
  }

  /**
   * Runs `work` in a transaction on a connection of the pool, and then the transaction's `afterCommit` hooks in order.
   * With `asyncCommit` the commit returns before its WAL reaches the disk (synchronous_commit off): no second flush
   * on a request's path, at the price that a server crash within a few hundred milliseconds may lose this transaction
   * (never a part of it, and never one committed before). `settings` are further `SET LOCAL`s for this transaction
   * alone, sent with its BEGIN; `isolation` its isolation level.
   *
   * BEGIN and COMMIT go to the pg client as every statement does: `sequelize.transaction` had spent 90–125 µs more of
   * this process's CPU per transaction, and a round trip more with `asyncCommit` (bench/REPORT.md, "transactions on
   * the pg client").
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const settings = { ...(options.asyncCommit ? { synchronous_commit: "off" } : {}), ...options.settings };
    const begin = beginOf(settings, options.isolation);
    // In a trace, the transaction is a span of its own: its statements, and the wait for a connection and the commit.
    return inChildSpan(
      "db.transaction",
      {
        attributes: {
          "db.system.name": "postgresql",
          "db.namespace": this.database,
          "docex.async_commit": settings.synchronous_commit === "off",
        },
      },
      () => this.inTransaction(work, begin),
    );
  }

  private async inTransaction<T>(work: (tx: Tx) => Promise<T>, begin: string): Promise<T> {
    const client = await this.acquire();
    const tx = new SqlTransaction(client);
    let result: T;
    try {
      await this.statement(tx, begin);
      try {
        result = await work(tx);
      } catch (error) {
        tx.finished = "rollback";
        // A ROLLBACK that fails leaves the connection in an unknown state: it is not lent again.
        await client.query("ROLLBACK").catch(() => {
          tx.broken = true;
        });
        throw error;
      }
      tx.finished = "commit";
      // A COMMIT that fails has ended the transaction all the same (Postgres rolls it back).
      await this.statement(tx, "COMMIT");
    } finally {
      tx.finished ??= "rollback";
      client.release(tx.broken || undefined);
    }
    for (const hook of tx.afterCommitHooks) await hook();
    return result;
  }

  private async statement(tx: SqlTransaction, text: string): Promise<void> {
    try {
      await tx.client.query(text);
    } catch (error) {
      const failure = databaseErrorOf(error, text);
      if (failure instanceof DatabaseUnavailableError) tx.broken = true;
      throw failure;
    }
  }
}

function send(client: pg.PoolClient, sql: Statement, bind: unknown[]): Promise<PgResult> {
  if (sql instanceof Prepared) return client.query({ name: sql.name, text: sql.text, values: bind.map(withoutNul) });
  return bind.length === 0 ? client.query(sql) : client.query(sql, bind.map(withoutNul));
}

export interface TransactionOptions {
  /** Commit without waiting for the WAL flush (synchronous_commit off). */
  asyncCommit?: boolean;
  /** `SET LOCAL`s for this transaction alone: names of letters, digits, `_` and one `.` (`docex.audit_erasure`); values of letters, digits and `_`. */
  settings?: Record<string, string>;
  /** The transaction's isolation level; Postgres' default (read committed) unless given. */
  isolation?: "read committed" | "repeatable read" | "serializable";
}

/** A transaction of `Sql`: its connection, until it has finished, and the hooks to run after its commit. */
class SqlTransaction implements Tx {
  /** Set when the transaction ends: its statements then throw. */
  finished: "commit" | "rollback" | undefined;
  /** The connection broke or is in an unknown state: the pool closes it instead of lending it again. */
  broken = false;
  readonly afterCommitHooks: Array<() => unknown> = [];

  constructor(readonly client: pg.PoolClient) {}

  afterCommit(hook: () => unknown): void {
    this.afterCommitHooks.push(hook);
  }
}

const SETTING_NAME = /^[a-z0-9_]+(\.[a-z0-9_]+)?$/i;
const SETTING_VALUE = /^[a-z0-9_]+$/i;
const ISOLATION_LEVELS = new Set(["read committed", "repeatable read", "serializable"]);

/** BEGIN and the transaction's `SET LOCAL`s, one round trip (the simple protocol takes several statements). */
function beginOf(settings: Record<string, string>, isolation: TransactionOptions["isolation"]): string {
  if (isolation !== undefined && !ISOLATION_LEVELS.has(isolation)) throw new Error(`not an isolation level: ${isolation}`);
  const sets = Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(value)) throw new Error(`not a transaction setting: ${name} = ${value}`);
    return `SET LOCAL ${name} = ${value}`;
  });
  return [isolation ? `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}` : "BEGIN", ...sets].join("; ");
}

/** What Sequelize sent for a string parameter, kept: a NUL byte (which Postgres refuses in text) as the two characters `\0`. */
function withoutNul(value: unknown): unknown {
  return typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\\0") : value;
}
