import type { Sql, Tx } from "@docex/kit/db";
import type { FailurePolicy, ValidationType } from "../domain/validation.js";

/** A queue's external validation link: which validator (a target registered in the webhook service) and its failure policy. */
export interface StoredValidationLink {
  queueId: string;
  type: ValidationType;
  organizationId: string;
  targetId: string;
  failurePolicy: FailurePolicy;
  createdAt: Date;
  updatedAt: Date;
}

const LINK_COLUMNS = `queue_id AS "queueId", type, organization_id AS "organizationId", target_id AS "targetId",
  failure_policy AS "failurePolicy", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The queues' external validation links (migration 0016): queue configuration, beside the queue's other options. */
export class ValidationLinkStore {
  constructor(private readonly sql: Sql) {}

  /** The queue's link of the type, locked until the transaction ends: saves and deletions of one slot take turns. */
  lock(tx: Tx, queueId: string, type: ValidationType): Promise<StoredValidationLink | undefined> {
    return this.sql
      .rows(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`validation-link:${queueId}:${type}`], tx)
      .then(() =>
        this.sql.one<StoredValidationLink>(
          `SELECT ${LINK_COLUMNS} FROM queue_validation_links WHERE queue_id = $1 AND type = $2`,
          [queueId, type],
          tx,
        ),
      );
  }

  async save(
    tx: Tx,
    link: Pick<StoredValidationLink, "queueId" | "type" | "organizationId" | "targetId" | "failurePolicy">,
  ): Promise<StoredValidationLink> {
    const row = await this.sql.one<StoredValidationLink>(
      `INSERT INTO queue_validation_links (queue_id, type, organization_id, target_id, failure_policy) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (queue_id, type) DO UPDATE
         SET target_id = EXCLUDED.target_id, failure_policy = EXCLUDED.failure_policy, updated_at = now()
       RETURNING ${LINK_COLUMNS}`,
      [link.queueId, link.type, link.organizationId, link.targetId, link.failurePolicy],
      tx,
    );
    if (!row) throw new Error("INSERT … RETURNING answered no row");
    return row;
  }

  delete(tx: Tx, queueId: string, type: ValidationType): Promise<StoredValidationLink | undefined> {
    return this.sql.one<StoredValidationLink>(
      `DELETE FROM queue_validation_links WHERE queue_id = $1 AND type = $2 RETURNING ${LINK_COLUMNS}`,
      [queueId, type],
      tx,
    );
  }

  ofQueue(queueId: string): Promise<StoredValidationLink[]> {
    return this.sql.rows<StoredValidationLink>(`SELECT ${LINK_COLUMNS} FROM queue_validation_links WHERE queue_id = $1 ORDER BY type`, [
      queueId,
    ]);
  }
}
