import type { Sql, Tx } from "@docex/kit/db";
import type { Rule, RuleKind } from "../domain/records.js";

const RULE_COLUMNS = `id, queue_id AS "queueId", organization_id AS "organizationId", kind, name, action, params, conditions, position,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A rule as created: its position, creation and update times are the store's. */
export type NewRule = Omit<Rule, "position" | "createdAt" | "updatedAt">;

/** Accounting and approval rules, ordered by position within (queue, kind). */
export class RuleStore {
  constructor(private readonly sql: Sql) {}

  list(queueId: string, kind: RuleKind, tx?: Tx): Promise<Rule[]> {
    return this.sql.rows<Rule>(
      `SELECT ${RULE_COLUMNS} FROM rules WHERE queue_id = $1 AND kind = $2 ORDER BY position`,
      [queueId, kind],
      tx,
    );
  }

  async page(queueId: string, kind: RuleKind, offset: number, limit: number): Promise<{ items: Rule[]; total: number }> {
    const [items, count] = await Promise.all([
      this.sql.rows<Rule>(`SELECT ${RULE_COLUMNS} FROM rules WHERE queue_id = $1 AND kind = $2 ORDER BY position OFFSET $3 LIMIT $4`, [
        queueId,
        kind,
        offset,
        limit,
      ]),
      this.sql.one<{ total: number }>("SELECT count(*)::int AS total FROM rules WHERE queue_id = $1 AND kind = $2", [queueId, kind]),
    ]);
    return { items, total: count?.total ?? 0 };
  }

  find(queueId: string, kind: RuleKind, id: string, tx?: Tx, lock = false): Promise<Rule | undefined> {
    return this.sql.one<Rule>(
      `SELECT ${RULE_COLUMNS} FROM rules WHERE id = $1 AND queue_id = $2 AND kind = $3${lock ? " FOR UPDATE" : ""}`,
      [id, queueId, kind],
      tx,
    );
  }

  async count(tx: Tx, queueId: string, kind: RuleKind): Promise<number> {
    const row = await this.sql.one<{ total: number }>(
      "SELECT count(*)::int AS total FROM rules WHERE queue_id = $1 AND kind = $2",
      [queueId, kind],
      tx,
    );
    return row?.total ?? 0;
  }

  /** Appends the rule after the queue's last rule of its kind. The caller holds the queue's lock. */
  async insert(tx: Tx, rule: NewRule): Promise<Rule> {
    const inserted = await this.sql.one<Rule>(
      `INSERT INTO rules (id, queue_id, organization_id, kind, name, action, params, conditions, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb,
               (SELECT coalesce(max(position), 0) + 1 FROM rules WHERE queue_id = $2 AND kind = $4))
       RETURNING ${RULE_COLUMNS}`,
      [
        rule.id,
        rule.queueId,
        rule.organizationId,
        rule.kind,
        rule.name,
        rule.action,
        JSON.stringify(rule.params),
        JSON.stringify(rule.conditions),
      ],
      tx,
    );
    if (!inserted) throw new Error("INSERT ... RETURNING returned no row");
    return inserted;
  }

  async update(tx: Tx, rule: Pick<Rule, "id" | "name" | "action" | "params" | "conditions">): Promise<Rule> {
    const updated = await this.sql.one<Rule>(
      `UPDATE rules SET name = $2, action = $3, params = $4::jsonb, conditions = $5::jsonb, updated_at = now()
       WHERE id = $1 RETURNING ${RULE_COLUMNS}`,
      [rule.id, rule.name, rule.action, JSON.stringify(rule.params), JSON.stringify(rule.conditions)],
      tx,
    );
    if (!updated) throw new Error(`rule ${rule.id} vanished`);
    return updated;
  }

  /** Deletes the rule and closes the gap, so positions stay 1..n. The caller holds the queue's lock. */
  async delete(tx: Tx, rule: Rule): Promise<void> {
    await this.sql.rows("DELETE FROM rules WHERE id = $1 RETURNING id", [rule.id], tx);
    await this.sql.rows(
      "UPDATE rules SET position = position - 1 WHERE queue_id = $1 AND kind = $2 AND position > $3 RETURNING id",
      [rule.queueId, rule.kind, rule.position],
      tx,
    );
  }

  /** Gives the rules positions 1..n in the order of `ids`, which the caller checked is a permutation. */
  async reorder(tx: Tx, queueId: string, kind: RuleKind, ids: string[]): Promise<void> {
    await this.sql.rows(
      `UPDATE rules SET position = ordered.position, updated_at = now()
       FROM unnest($3::uuid[]) WITH ORDINALITY AS ordered (id, position)
       WHERE rules.id = ordered.id AND rules.queue_id = $1 AND rules.kind = $2 AND rules.position <> ordered.position
       RETURNING rules.id`,
      [queueId, kind, ids],
      tx,
    );
  }
}
