import type { Sql, Tx } from "@docex/kit/db";

/** What every table store of the membership database shares: the one `Sql` of the service's unit of work. */
export abstract class TableStore {
  constructor(protected readonly sql: Sql) {}

  protected select<T extends object>(sql: string, bind: unknown[], tx?: Tx): Promise<T[]> {
    return this.sql.rows<T>(sql, bind, tx);
  }

  protected async execute(sql: string, bind: unknown[], tx: Tx): Promise<void> {
    await this.sql.run(sql, bind, tx);
  }
}
