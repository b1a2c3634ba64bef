import type { Tx } from "@docex/kit/db";
import { TableStore } from "./table-store.js";

export interface UserSchemaField {
  key: string;
  hidden: boolean;
  readonly: boolean;
}

/** Each member's annotation schema: organization-wide and per queue. */
export class UserSchemaStore extends TableStore {
  async saveUserSchema(tx: Tx, organizationId: string, userId: string, queueId: string | null, fields: UserSchemaField[]): Promise<void> {
    if (fields.length === 0) {
      await this.execute(
        "DELETE FROM user_schemas WHERE organization_id = $1 AND user_id = $2 AND queue_id IS NOT DISTINCT FROM $3::uuid",
        [organizationId, userId, queueId],
        tx,
      );
      return;
    }
    await this.execute(
      `INSERT INTO user_schemas (organization_id, user_id, queue_id, fields) VALUES ($1, $2, $3::uuid, $4::jsonb)
       ON CONFLICT (organization_id, user_id, queue_id) DO UPDATE SET fields = EXCLUDED.fields, updated_at = now()`,
      [organizationId, userId, queueId, JSON.stringify(fields)],
      tx,
    );
  }

  /** The fields of one (member, queue) pair, locked for the rest of `tx`; [] when there are none. */
  async userSchemaFor(tx: Tx, organizationId: string, userId: string, queueId: string | null): Promise<UserSchemaField[]> {
    const rows = await this.select<{ fields: UserSchemaField[] }>(
      `SELECT fields FROM user_schemas
       WHERE organization_id = $1 AND user_id = $2 AND queue_id IS NOT DISTINCT FROM $3::uuid FOR UPDATE`,
      [organizationId, userId, queueId],
      tx,
    );
    return rows[0]?.fields ?? [];
  }

  /** The organization-wide entries and, when `queueId` is given, that queue's. */
  async userSchemaLayers(
    organizationId: string,
    userId: string,
    queueId: string | null,
  ): Promise<{ organization: UserSchemaField[]; queue: UserSchemaField[] }> {
    const rows = await this.select<{ queue_id: string | null; fields: UserSchemaField[] }>(
      `SELECT queue_id, fields FROM user_schemas
       WHERE organization_id = $1 AND user_id = $2 AND (queue_id IS NULL OR queue_id = $3::uuid)`,
      [organizationId, userId, queueId],
    );
    return {
      organization: rows.find((row) => row.queue_id === null)?.fields ?? [],
      queue: queueId === null ? [] : (rows.find((row) => row.queue_id !== null)?.fields ?? []),
    };
  }
}
