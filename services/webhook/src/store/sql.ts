import { QueryTypes, type Sequelize } from "sequelize";

/** Raw SQL with bind parameters; every result is a plain row object. */
export class Sql {
  constructor(readonly sequelize: Sequelize) {}

  rows<T extends object>(sql: string, bind: unknown[] = []): Promise<T[]> {
    return this.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  }

  async one<T extends object>(sql: string, bind: unknown[] = []): Promise<T | undefined> {
    return (await this.rows<T>(sql, bind))[0];
  }
}

/** Postgres' unique_violation, for answers that turn a duplicate into 409. */
export function isUniqueViolation(error: unknown): boolean {
  const original = (error as { original?: { code?: string }; parent?: { code?: string } }) ?? {};
  return original.original?.code === "23505" || original.parent?.code === "23505";
}
