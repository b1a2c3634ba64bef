import type { Sql } from "@docex/kit";
import type { DocumentScope, FailurePolicy, KnownValidators, ValidatorKnowledge } from "../domain/validation.js";
import type { ListedValidator, ValidatorSeeds } from "../domain/validator-seed.js";

export interface ValidationLinkState {
  queueId: string;
  type: string;
  /** False once the link is removed. */
  present: boolean;
  failurePolicy: FailurePolicy;
  changedAt: string;
}

export interface ValidationWebhookState {
  webhookId: string;
  type: string;
  entityType: "document" | "queue" | "workspace" | "organization";
  entityId: string;
  /** False once the webhook is removed, or no longer of a validation type. */
  present: boolean;
  changedAt: string;
}

const UPSERT_LINK = `INSERT INTO validation_links (queue_id, type, present, failure_policy, changed_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (queue_id, type) DO UPDATE
    SET present = EXCLUDED.present, failure_policy = EXCLUDED.failure_policy, changed_at = EXCLUDED.changed_at
    WHERE validation_links.changed_at <= EXCLUDED.changed_at`;

const UPSERT_WEBHOOK = `INSERT INTO validation_webhooks (webhook_id, type, entity_type, entity_id, present, changed_at)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (webhook_id) DO UPDATE
    SET type = EXCLUDED.type, entity_type = EXCLUDED.entity_type, entity_id = EXCLUDED.entity_id, present = EXCLUDED.present,
        changed_at = EXCLUDED.changed_at
    WHERE validation_webhooks.changed_at <= EXCLUDED.changed_at`;

/** The entities a document's validator may sit on, as `(entity_type, entity_id)` pairs: $2 queue, $3 document, $4 workspace, $5 organization. */
const ENTITIES_OF_DOCUMENT = `(('queue', $2::uuid), ('document', $3::uuid), ('workspace', $4::uuid), ('organization', $5::uuid))`;

/**
 * What the document service knows of the webhook service's validators: the queues' links (validation_links), the
 * validation webhooks of the deprecated API (validation_webhooks), both followed from configuration.changed events;
 * the validators the webhook service said to expect before committing them (validator_notes); and whether the
 * validators that predate these projections have been seeded into them (validator_projection).
 */
export class ValidatorStore implements KnownValidators, ValidatorSeeds {
  constructor(private readonly sql: Sql) {}

  /** Keeps the newest state of a link; an older one, redelivered or late, changes nothing. */
  async recordLink(state: ValidationLinkState): Promise<void> {
    await this.sql.run(UPSERT_LINK, [state.queueId, state.type, state.present, state.failurePolicy, state.changedAt]);
    await this.settleNotes("queue", state.queueId, state.type, state.changedAt);
  }

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
      for (const validator of validators) {
        if (validator.kind === "link") {
          await this.sql.run(UPSERT_LINK, [validator.queueId, validator.type, true, validator.failurePolicy, askedAt], tx);
        } else {
          await this.sql.run(
            UPSERT_WEBHOOK,
            [validator.webhookId, validator.type, validator.entityType, validator.entityId, true, askedAt],
            tx,
          );
        }
      }
    });
  }

  async markSeeded(): Promise<void> {
    await this.sql.run("UPDATE validator_projection SET seeded_at = now() WHERE seeded_at IS NULL");
  }

  async of(type: string, scope: DocumentScope): Promise<ValidatorKnowledge> {
    const row = await this.sql.one<{ seeded: boolean | null; link_policy: FailurePolicy | null; webhook: boolean; noted_at: Date | null }>(
      `SELECT (SELECT seeded_at IS NOT NULL FROM validator_projection) AS seeded,
              (SELECT failure_policy FROM validation_links WHERE queue_id = $2 AND type = $1 AND present) AS link_policy,
              EXISTS (SELECT 1 FROM validation_webhooks
                      WHERE entity_id IN ($2, $3, $4, $5) AND type = $1 AND present AND (entity_type, entity_id) IN ${ENTITIES_OF_DOCUMENT}) AS webhook,
              (SELECT max(noted_at) FROM validator_notes
               WHERE entity_id IN ($2, $3, $4, $5) AND type = $1 AND (entity_type, entity_id) IN ${ENTITIES_OF_DOCUMENT}) AS noted_at`,
      [type, scope.queueId, scope.documentId, scope.workspaceId, scope.organizationId],
    );
    return {
      seeded: row?.seeded === true,
      failurePolicy: row?.link_policy ?? (row?.webhook ? "allow" : undefined),
      link: row?.link_policy ?? undefined,
      notedAt: row?.noted_at ? row.noted_at.getTime() : undefined,
    };
  }

  async forgetNotes(type: string, scope: DocumentScope, notedBefore: number): Promise<void> {
    await this.sql.run(
      `DELETE FROM validator_notes
       WHERE entity_id IN ($2, $3, $4, $5) AND type = $1 AND (entity_type, entity_id) IN ${ENTITIES_OF_DOCUMENT} AND noted_at < $6`,
      [type, scope.queueId, scope.documentId, scope.workspaceId, scope.organizationId, new Date(notedBefore)],
    );
  }
}
