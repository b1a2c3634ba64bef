import { QueryTypes, type Sequelize, type Transaction } from "sequelize";
import { inChildSpan } from "../tracing/spans.js";

/** A database transaction as the domain sees it: something to pass back to the store, nothing more. */
export type Tx = Transaction;

/** Raw SQL with bind parameters; every result is a plain row object. The stores of every service query through it. */
export class Sql {
  constructor(readonly sequelize: Sequelize) {}

  rows<T extends object>(sql: string, bind: unknown[] = [], tx?: Tx): Promise<T[]> {
    return this.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction: tx });
  }

  async one<T extends object>(sql: string, bind: unknown[] = [], tx?: Tx): Promise<T | undefined> {
    return (await this.rows<T>(sql, bind, tx))[0];
  }

  /** A statement whose rows nobody reads (writes, deletes). */
  async run(sql: string, bind: unknown[] = [], tx?: Tx): Promise<void> {
    await this.sequelize.query(sql, { bind, transaction: tx });
  }

  /**
   * Runs `work` in a transaction. With `asyncCommit` the commit returns before its WAL reaches the disk
   * (synchronous_commit off): no second flush on a request's path, at the price that a server crash within a
   * few hundred milliseconds may lose this transaction (never a part of it, and never one committed before).
   */
  transaction<T>(work: (tx: Tx) => Promise<T>, options: { asyncCommit?: boolean } = {}): Promise<T> {
    // In a trace, the transaction is a span of its own: its statements, and the wait for a connection and the commit.
    return inChildSpan(
      "db.transaction",
      {
        attributes: {
          "db.system.name": "postgresql",
          "db.namespace": this.sequelize.config.database,
          "docex.async_commit": Boolean(options.asyncCommit),
        },
      },
      () => {
        if (!options.asyncCommit) return this.sequelize.transaction(work);
        return this.sequelize.transaction(async (tx) => {
          await this.run("SET LOCAL synchronous_commit TO off", [], tx);
          return work(tx);
        });
      },
    );
  }
}

/** Postgres' unique_violation, for answers that turn a duplicate into 409. */
export function isUniqueViolation(error: unknown): boolean {
  const original = (error as { original?: { code?: string }; parent?: { code?: string } }) ?? {};
  return original.original?.code === "23505" || original.parent?.code === "23505";
}
