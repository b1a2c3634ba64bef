import { QueryTypes, type Sequelize, type Transaction } from "sequelize";

/** A database transaction as the domain sees it: something to pass back to the store, nothing more. */
export type Tx = Transaction;

/** Raw SQL with bind parameters; every result is a plain row object. */
export class Sql {
  constructor(readonly sequelize: Sequelize) {}

  rows<T extends object>(sql: string, bind: unknown[] = [], tx?: Tx): Promise<T[]> {
    return this.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction: tx });
  }

  async one<T extends object>(sql: string, bind: unknown[] = [], tx?: Tx): Promise<T | undefined> {
    return (await this.rows<T>(sql, bind, tx))[0];
  }

  async run(sql: string, bind: unknown[] = [], tx?: Tx): Promise<void> {
    await this.sequelize.query(sql, { bind, transaction: tx });
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sequelize.transaction(work);
  }
}
