import type { Sql, Tx } from "@docex/kit/db";
import type { EntityType, QueueValidators, ValidationType } from "../domain/validation.js";

/** A validation webhook of the deprecated API as this service keeps it: where it applies, and whether it still does. */
export interface ValidationWebhookState {
  webhookId: string;
  organizationId: string;
  type: ValidationType;
  entityType: EntityType;
  entityId: string;
  /** The queue of a document's or queue's webhook; the workspace of those and of a workspace's. */
  queueId: string | null;
  workspaceId: string | null;
  /** False once the webhook is removed (or replaced by the queue's link): a tombstone, so an older state cannot revive it. */
  present: boolean;
  changedAt: Date;
}

const UPSERT_WEBHOOK = `INSERT INTO validation_webhooks
    (webhook_id, organization_id, type, entity_type, entity_id, queue_id, workspace_id, present, changed_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (webhook_id) DO UPDATE
    SET present = EXCLUDED.present, changed_at = EXCLUDED.changed_at
    WHERE validation_webhooks.changed_at < EXCLUDED.changed_at
  RETURNING webhook_id`;

/**
 * Which validators apply to documents, besides the queues' links (validation-link-store.ts): the validation webhooks
 * of the deprecated API on a document, queue, workspace or organization (migration 0018 made the projection of the
 * webhook service's events this service's configuration; the webhook service tells it of every change after its
 * commit, RecordValidationWebhook, and its configuration.changed is the backstop).
 */
export class ValidatorStore {
  constructor(private readonly sql: Sql) {}

  /** Keeps the newer state of a validation webhook; an older one changes nothing (answers false). */
  async record(state: ValidationWebhookState, tx?: Tx): Promise<boolean> {
    const rows = await this.sql.rows(
      UPSERT_WEBHOOK,
      [
        state.webhookId,
        state.organizationId,
        state.type,
        state.entityType,
        state.entityId,
        state.queueId,
        state.workspaceId,
        state.present,
        state.changedAt,
      ],
      tx,
    );
    return rows.length > 0;
  }

  /** The queue's own validation webhook of the type, locked until the transaction ends (a link's save replaces it). */
  ownWebhookOfQueue(tx: Tx, queueId: string, type: ValidationType): Promise<{ webhookId: string } | undefined> {
    return this.sql.one<{ webhookId: string }>(
      `SELECT webhook_id AS "webhookId" FROM validation_webhooks
       WHERE entity_id = $1 AND type = $2 AND entity_type = 'queue' AND present
       ORDER BY changed_at LIMIT 1 FOR UPDATE`,
      [queueId, type],
      tx,
    );
  }

  /**
   * Everything that may validate a document of the queue, in one query: its links, and the validation webhooks of
   * its documents, itself, its workspace and its organization. The hierarchy store keeps it with the cached queue.
   */
  async ofQueue(queue: { id: string; workspaceId: string; organizationId: string }): Promise<QueueValidators> {
    const rows = await this.sql.rows<{
      kind: "link" | "webhook";
      type: ValidationType;
      target_id: string;
      failure_policy: "allow" | "block";
      entity_type: EntityType | null;
      entity_id: string | null;
    }>(
      `SELECT 'link' AS kind, type, target_id, failure_policy, NULL AS entity_type, NULL::uuid AS entity_id, created_at AS at
       FROM queue_validation_links WHERE queue_id = $1
       UNION ALL
       SELECT 'webhook', type, webhook_id, 'allow', entity_type, entity_id, changed_at
       FROM validation_webhooks
       WHERE present AND (queue_id = $1 OR (entity_type = 'workspace' AND entity_id = $2) OR (entity_type = 'organization' AND entity_id = $3))
       ORDER BY at, target_id`,
      [queue.id, queue.workspaceId, queue.organizationId],
    );
    const validators: QueueValidators = { links: new Map(), webhooks: [] };
    for (const row of rows) {
      if (row.kind === "link") validators.links.set(row.type, { targetId: row.target_id, failurePolicy: row.failure_policy });
      else if (row.entity_type && row.entity_id) {
        validators.webhooks.push({ webhookId: row.target_id, type: row.type, entityType: row.entity_type, entityId: row.entity_id });
      }
    }
    return validators;
  }
}
