import type { Sql } from "@docex/kit";
import type { DocumentScope, FailurePolicy, KnownValidators, ValidationType, ValidatorKnowledge } from "../domain/validation.js";
import type { DeprecatedValidators } from "../domain/validation-links.js";
import type { ListedValidator, ValidatorSeeds } from "../domain/validator-seed.js";

export interface ValidationWebhookState {
  webhookId: string;
  type: string;
  entityType: "document" | "queue" | "workspace" | "organization";
  entityId: string;
  /** False once the webhook is removed, or no longer of a validation type. */
  present: boolean;
  changedAt: string;
}

const UPSERT_WEBHOOK = `INSERT INTO validation_webhooks (webhook_id, type, entity_type, entity_id, present, changed_at)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (webhook_id) DO UPDATE
    SET type = EXCLUDED.type, entity_type = EXCLUDED.entity_type, entity_id = EXCLUDED.entity_id, present = EXCLUDED.present,
        changed_at = EXCLUDED.changed_at
    WHERE validation_webhooks.changed_at <= EXCLUDED.changed_at`;

/** The entities a document's validator may sit on, as `(entity_type, entity_id)` pairs: $2 queue, $3 document, $4 workspace, $5 organization. */
const ENTITIES_OF_DOCUMENT = `(('queue', $2::uuid), ('document', $3::uuid), ('workspace', $4::uuid), ('organization', $5::uuid))`;

/**
 * What the document service knows of a document's validators: the queues' own links (queue_validation_links, its
 * configuration since issue 41); the validation webhooks of the deprecated API (validation_webhooks), followed from
 * the webhook service's configuration.changed events; the validation webhooks it said to expect before committing them
 * (validator_notes); and whether those that predate the projection have been seeded into it (validator_projection).
 */
export class ValidatorStore implements KnownValidators, ValidatorSeeds, DeprecatedValidators {
  constructor(private readonly sql: Sql) {}

  /** Keeps the newest state of a validation webhook; an older one changes nothing. */
  async recordWebhook(state: ValidationWebhookState): Promise<void> {
    await this.sql.run(UPSERT_WEBHOOK, [state.webhookId, state.type, state.entityType, state.entityId, state.present, state.changedAt]);
    await this.settleNotes(state.entityType, state.entityId, state.type, state.changedAt);
  }

  /**
   * A change of the slot's validator has arrived: the notes made before it are what that change (or an earlier one)
   * announced, and the projection now says it. A note made after it stays: its change is still to come.
   */
  private async settleNotes(entityType: string, entityId: string, type: string, changedAt: string): Promise<void> {
    await this.sql.run("DELETE FROM validator_notes WHERE entity_id = $1 AND type = $2 AND entity_type = $3 AND noted_at <= $4", [
      entityId,
      type,
      entityType,
      changedAt,
    ]);
  }

  /** ExpectValidator: from now on the entity's documents are asked about, whatever the projections show. */
  async note(entityType: string, entityId: string, type: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO validator_notes (entity_type, entity_id, type, noted_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (entity_id, type, entity_type) DO UPDATE SET noted_at = now()`,
      [entityType, entityId, type],
    );
  }

  async seeded(): Promise<boolean> {
    const row = await this.sql.one<{ seeded: boolean }>("SELECT seeded_at IS NOT NULL AS seeded FROM validator_projection");
    return row?.seeded ?? false;
  }

  /** Records one page of the webhook service's list as of `askedAt` (events dated after it win). */
  async seed(validators: ListedValidator[], askedAt: string): Promise<void> {
    await this.sql.transaction(async (tx) => {
      // Links are this service's own (queue_validation_links): an older webhook service that lists them is not followed.
      for (const validator of validators) {
        if (validator.kind !== "webhook") continue;
        await this.sql.run(
          UPSERT_WEBHOOK,
          [validator.webhookId, validator.type, validator.entityType, validator.entityId, true, askedAt],
          tx,
        );
      }
    });
  }

  async markSeeded(): Promise<void> {
    await this.sql.run("UPDATE validator_projection SET seeded_at = now() WHERE seeded_at IS NULL");
  }

  async of(type: string, scope: DocumentScope): Promise<ValidatorKnowledge> {
    const row = await this.sql.one<{
      seeded: boolean | null;
      link_policy: FailurePolicy | null;
      link_target: string | null;
      webhook: boolean;
      noted_at: Date | null;
    }>(
      `SELECT (SELECT seeded_at IS NOT NULL FROM validator_projection) AS seeded,
              l.failure_policy AS link_policy, l.target_id AS link_target,
              EXISTS (SELECT 1 FROM validation_webhooks
                      WHERE entity_id IN ($2, $3, $4, $5) AND type = $1 AND present AND (entity_type, entity_id) IN ${ENTITIES_OF_DOCUMENT}) AS webhook,
              (SELECT max(noted_at) FROM validator_notes
               WHERE entity_id IN ($2, $3, $4, $5) AND type = $1 AND (entity_type, entity_id) IN ${ENTITIES_OF_DOCUMENT}) AS noted_at
       FROM (SELECT 1) one LEFT JOIN queue_validation_links l ON l.queue_id = $2 AND l.type = $1`,
      [type, scope.queueId, scope.documentId, scope.workspaceId, scope.organizationId],
    );
    const link = row?.link_policy && row.link_target ? { targetId: row.link_target, failurePolicy: row.link_policy } : undefined;
    return {
      seeded: row?.seeded === true,
      failurePolicy: link?.failurePolicy ?? (row?.webhook ? "allow" : undefined),
      link,
      notedAt: row?.noted_at ? row.noted_at.getTime() : undefined,
    };
  }

  /** The queue's own, its workspace's and its organization's validation webhooks of the deprecated API, nearest first. */
  webhooksOfQueue(queue: { queueId: string; workspaceId: string; organizationId: string }) {
    return this.sql.rows<{ webhookId: string; type: ValidationType }>(
      `SELECT webhook_id AS "webhookId", type FROM validation_webhooks
       WHERE present AND entity_id IN ($1, $2, $3) AND (entity_type, entity_id) IN (('queue', $1::uuid), ('workspace', $2::uuid), ('organization', $3::uuid))
       ORDER BY array_position(ARRAY['queue', 'workspace', 'organization'], entity_type), changed_at, webhook_id`,
      [queue.queueId, queue.workspaceId, queue.organizationId],
    );
  }

  async forgetNotes(type: string, scope: DocumentScope, notedBefore: number): Promise<void> {
    await this.sql.run(
      `DELETE FROM validator_notes
       WHERE entity_id IN ($2, $3, $4, $5) AND type = $1 AND (entity_type, entity_id) IN ${ENTITIES_OF_DOCUMENT} AND noted_at < $6`,
      [type, scope.queueId, scope.documentId, scope.workspaceId, scope.organizationId, new Date(notedBefore)],
    );
  }
}
