import type { Sql } from "@docex/kit/db";

export interface KnownRegister {
  registerId: string;
  queueId: string;
  organizationId: string;
  name: string;
}

/** The projection of register.updated: which register belongs to which queue. */
export class RegisterStore {
  constructor(private readonly sql: Sql) {}

  async remember(register: KnownRegister): Promise<void> {
    await this.sql.rows(
      `INSERT INTO queue_registers (register_id, queue_id, organization_id, name) VALUES ($1, $2, $3, $4)
       ON CONFLICT (register_id) DO UPDATE SET name = EXCLUDED.name, seen_at = now()
       RETURNING register_id`,
      [register.registerId, register.queueId, register.organizationId, register.name],
    );
  }

  find(registerId: string): Promise<KnownRegister | undefined> {
    return this.sql.one<KnownRegister>(
      `SELECT register_id AS "registerId", queue_id AS "queueId", organization_id AS "organizationId", name
       FROM queue_registers WHERE register_id = $1`,
      [registerId],
    );
  }
}
