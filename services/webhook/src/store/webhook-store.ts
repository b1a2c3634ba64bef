import { prepared, type Sql, type Tx } from "@docex/kit/db";
import { DISABLED_WEBHOOK_ERROR } from "../domain/receiver-health.js";
import type { EntityType, FailurePolicy, Page, Paged, SignatureVerification, ValidationType, Webhook } from "../domain/records.js";

const WEBHOOK_COLUMNS = `id, url, entity_type AS "entityType", entity_id AS "entityId", organization_id AS "organizationId",
  workspace_id AS "workspaceId", queue_id AS "queueId", type, signature_verification AS "signatureVerification",
  destination_id AS "destinationId", deprecated, status, disabled_at AS "disabledAt", disabled_reason AS "disabledReason",
  failing_since AS "failingSince", last_success_at AS "lastSuccessAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

const KEY_COLUMNS = `organization_id AS "organizationId", key_id AS "keyId", sealed_key AS "sealedKey", kek_fingerprint AS "kekFingerprint",
  created_at AS "createdAt", previous_key_id AS "previousKeyId", previous_valid_until AS "previousValidUntil"`;

export interface SealedSigningKey {
  organizationId: string;
  keyId: string;
  sealedKey: string;
  kekFingerprint: string;
  createdAt: Date;
  /** The key before the last rotation, while it still signs beside this one (else null). */
  previousKeyId: string | null;
  previousValidUntil: Date | null;
}

/** A sealed key as the senders read it with what they send: the current one, or the previous one in its grace window. */
export interface SealedKeyRef {
  organizationId: string;
  sealedKey: string;
  kekFingerprint: string;
}

/** A link (id: its queue) or a deprecated validation webhook (id: the webhook's), with the keys that sign for it. */
export interface StoredValidationTarget {
  /** `target`: registered by RegisterValidationTarget (only found by id). */
  kind: "link" | "webhook" | "target";
  id: string;
  url: string;
  organizationId: string;
  signatureVerification: SignatureVerification;
  /** Deprecated validation webhooks have none: `allow`. */
  failurePolicy: FailurePolicy;
  /** Null when signing is off for the target or the organization has no key. */
  sealedKey: string | null;
  kekFingerprint: string | null;
  /** The previous key while its grace window lasts (answers signed with it are accepted); else null. */
  previousSealedKey: string | null;
  previousKekFingerprint: string | null;
}

export interface WebhookChange {
  url?: string;
  signatureVerification?: SignatureVerification;
  destinationId?: string | null;
  /** Makes a disabled webhook active again and forgets its run of failures. */
  enable?: boolean;
}

/** Where a validation call goes ($1 the type; $2–$5 the queue, document, workspace, organization): on every edit's path, so prepared. */
const VALIDATION_TARGET = prepared(
  `WITH candidates AS (
     SELECT 'webhook' AS kind, id, url, organization_id, signature_verification, 'allow' AS failure_policy,
            array_position(ARRAY['document', 'queue', 'workspace', 'organization'], entity_type) AS rank, created_at
     FROM webhooks
     WHERE type = $1 AND (entity_type, entity_id) IN (('document', $3::uuid), ('queue', $2::uuid), ('workspace', $4::uuid), ('organization', $5::uuid))
   )
   SELECT c.kind, c.id, c.url, c.organization_id AS "organizationId", c.signature_verification AS "signatureVerification",
          c.failure_policy AS "failurePolicy", k.sealed_key AS "sealedKey", k.kek_fingerprint AS "kekFingerprint",
          CASE WHEN k.previous_valid_until > now() THEN k.previous_sealed_key END AS "previousSealedKey",
          CASE WHEN k.previous_valid_until > now() THEN k.previous_kek_fingerprint END AS "previousKekFingerprint"
   FROM candidates c LEFT JOIN signing_keys k ON k.organization_id = c.organization_id AND c.signature_verification = 'enabled'
   ORDER BY c.rank, c.created_at, c.id LIMIT 1`,
);

/**
 * A validator by its target id (Validate with `target_id`): a registered target, a link saved before the targets
 * (its derived id) or a validation webhook of the deprecated API, with the organization's sealed key. One index probe
 * per table; no question of which validator applies, which the caller has decided.
 */
const VALIDATION_TARGET_BY_ID = prepared(
  `WITH candidates AS (
     SELECT 'target' AS kind, id, url, organization_id, signature_verification, 'allow' AS failure_policy
     FROM validation_targets WHERE id = $1 AND organization_id = $2
     UNION ALL
     SELECT 'webhook', id, url, organization_id, signature_verification, 'allow'
     FROM webhooks WHERE id = $1 AND organization_id = $2 AND type IN ('document_validation', 'initial_document_validation')
   )
   SELECT c.kind, c.id, c.url, c.organization_id AS "organizationId", c.signature_verification AS "signatureVerification",
          c.failure_policy AS "failurePolicy", k.sealed_key AS "sealedKey", k.kek_fingerprint AS "kekFingerprint",
          CASE WHEN k.previous_valid_until > now() THEN k.previous_sealed_key END AS "previousSealedKey",
          CASE WHEN k.previous_valid_until > now() THEN k.previous_kek_fingerprint END AS "previousKekFingerprint"
   FROM candidates c LEFT JOIN signing_keys k ON k.organization_id = c.organization_id AND c.signature_verification = 'enabled'
   LIMIT 1`,
);

/** Webhooks, validation links and signing keys; answers are plain objects. */
export class WebhookStore {
  constructor(private readonly sql: Sql) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  async insertWebhook(
    webhook: Omit<Webhook, "createdAt" | "updatedAt" | "status" | "disabledAt" | "disabledReason" | "failingSince" | "lastSuccessAt">,
    tx?: Tx,
  ): Promise<Webhook> {
    const row = await this.sql.one<Webhook>(
      `INSERT INTO webhooks (id, url, entity_type, entity_id, organization_id, workspace_id, queue_id, type,
                             signature_verification, destination_id, deprecated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${WEBHOOK_COLUMNS}`,
      [
        webhook.id,
        webhook.url,
        webhook.entityType,
        webhook.entityId,
        webhook.organizationId,
        webhook.workspaceId,
        webhook.queueId,
        webhook.type,
        webhook.signatureVerification,
        webhook.destinationId,
        webhook.deprecated,
      ],
      tx,
    );
    return row!;
  }

  /** With `tx`, the row stays locked until the transaction ends (the state before a change). */
  findWebhook(id: string, tx?: Tx): Promise<Webhook | undefined> {
    return this.sql.one<Webhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1${tx ? " FOR UPDATE" : ""}`, [id], tx);
  }

  /** Undefined when the webhook is gone. A new url, or enabling it, starts its failure run afresh. */
  updateWebhook(id: string, change: WebhookChange, tx?: Tx): Promise<Webhook | undefined> {
    return this.sql.one<Webhook>(
      `UPDATE webhooks SET
         url = CASE WHEN $2::boolean THEN $3 ELSE url END,
         signature_verification = CASE WHEN $4::boolean THEN $5 ELSE signature_verification END,
         destination_id = CASE WHEN $6::boolean THEN $7::uuid ELSE destination_id END,
         status = CASE WHEN $8::boolean THEN 'active' ELSE status END,
         disabled_at = CASE WHEN $8::boolean THEN NULL ELSE disabled_at END,
         disabled_reason = CASE WHEN $8::boolean THEN NULL ELSE disabled_reason END,
         failing_since = CASE WHEN $8::boolean OR ($2::boolean AND $3 IS DISTINCT FROM url) THEN NULL ELSE failing_since END,
         updated_at = now()
       WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      [
        id,
        change.url !== undefined,
        change.url ?? null,
        change.signatureVerification !== undefined,
        change.signatureVerification ?? null,
        change.destinationId !== undefined,
        change.destinationId ?? null,
        change.enable === true,
      ],
      tx,
    );
  }

  /**
   * Deletes the webhook with its deliveries and attempts, and returns it as it was (undefined if there was none). The
   * deliveries go first: recording an outcome locks a delivery, then its webhook (receiver health), so taking them in
   * that order here too cannot deadlock with it. A caller must not lock the webhook before (no `findWebhook` in `tx`).
   */
  async deleteWebhook(id: string, tx: Tx): Promise<Webhook | undefined> {
    await this.sql.rows(`DELETE FROM deliveries WHERE webhook_id = $1`, [id], tx);
    return this.sql.one<Webhook>(`DELETE FROM webhooks WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`, [id], tx);
  }

  /**
   * Removes what is kept of a deleted queue or workspace (queue.deleted, workspace.deleted): the webhooks of it and
   * of everything under it, with their deliveries (first, as in deleteWebhook), and a queue's validation links.
   * Nothing is published: the deletion event says it all.
   */
  async removeUnder(level: "queue" | "workspace", id: string): Promise<void> {
    const column = level === "queue" ? "queue_id" : "workspace_id";
    await this.sql.transaction(async (tx) => {
      await this.sql.run(`DELETE FROM deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE ${column} = $1)`, [id], tx);
      await this.sql.run(`DELETE FROM webhooks WHERE ${column} = $1`, [id], tx);
    });
  }

  /**
   * Removes what is kept of purged documents (documents.purged): the webhooks attached to them, and every delivery
   * about them (their bodies name the document and its status). Removing nothing is fine.
   */
  async removeDocuments(documentIds: string[]): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const onDocuments = "SELECT id FROM webhooks WHERE entity_type = 'document' AND entity_id = ANY($1::uuid[])";
      await this.sql.run(`DELETE FROM deliveries WHERE webhook_id IN (${onDocuments})`, [documentIds], tx);
      await this.sql.run(
        "DELETE FROM deliveries WHERE type = 'document_status_changed' AND (body::jsonb ->> 'document_id') = ANY($1::text[])",
        [documentIds],
        tx,
      );
      await this.sql.run(`DELETE FROM webhooks WHERE id IN (${onDocuments})`, [documentIds], tx);
    });
  }

  /** The webhooks attached to one entity itself, oldest first: all of them without `page`, else that page. */
  async webhooksOf(entityType: EntityType, entityId: string, page?: Page): Promise<Paged<Webhook>> {
    const [items, count] = await Promise.all([
      this.sql.rows<Webhook>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE entity_type = $1 AND entity_id = $2
         ORDER BY created_at, id LIMIT $3 OFFSET $4`,
        [entityType, entityId, page ? page.pageSize : null, page ? (page.page - 1) * page.pageSize : 0],
      ),
      this.sql.one<{ total: number }>(`SELECT count(*)::int AS total FROM webhooks WHERE entity_type = $1 AND entity_id = $2`, [
        entityType,
        entityId,
      ]),
    ]);
    return { items, total: count?.total ?? 0 };
  }

  /**
   * Disables the active webhooks whose run of failures began before `failingFor` ms ago, and fails their pending
   * deliveries that no sender holds; one a sender holds is failed when its outcome is recorded (`DeliveryStore.record`
   * reads the webhook's status). Leaving held ones alone keeps this statement's locks (webhook, then delivery) apart
   * from those of recording (delivery, then webhook), which would otherwise deadlock.
   * Answers each webhook as it was before and as it is now. Row locks make replicas that sweep at the same
   * moment disable each webhook once.
   */
  async disableFailing(
    failingForMs: number,
    reason: (failingSince: Date) => string,
    tx: Tx,
  ): Promise<Array<{ before: Webhook; after: Webhook }>> {
    const failing = await this.sql.rows<Webhook>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks
       WHERE status = 'active' AND failing_since IS NOT NULL AND failing_since <= now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY failing_since LIMIT 500 FOR UPDATE SKIP LOCKED`,
      [failingForMs],
      tx,
    );
    const changed: Array<{ before: Webhook; after: Webhook }> = [];
    for (const before of failing) {
      const after = await this.sql.one<Webhook>(
        `UPDATE webhooks SET status = 'disabled', disabled_at = now(), disabled_reason = $2, updated_at = now()
         WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
        [before.id, reason(before.failingSince!)],
        tx,
      );
      changed.push({ before, after: after! });
    }
    if (changed.length > 0) {
      await this.sql.rows(
        `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, completed_at = now(), updated_at = now(),
           last_error = $2
         WHERE webhook_id = ANY ($1::uuid[]) AND status = 'pending' AND (lease_token IS NULL OR next_attempt_at <= now())
         RETURNING id`,
        [changed.map(({ after }) => after.id), DISABLED_WEBHOOK_ERROR],
        tx,
      );
    }
    return changed;
  }

  /**
   * Where a document's validation call of `type` goes, in one round trip (it is on the path of every edit): the
   * queue's link, else the nearest deprecated validation webhook (document, queue, workspace, organization; the
   * oldest at that level), with the organization's sealed signing keys when that target has signing on.
   */
  validationTarget(type: ValidationType, scope: { documentId: string; queueId: string; workspaceId: string; organizationId: string }) {
    return this.sql.one<StoredValidationTarget>(VALIDATION_TARGET, [
      type,
      scope.queueId,
      scope.documentId,
      scope.workspaceId,
      scope.organizationId,
    ]);
  }

  /** The organization's target of that id; another organization's is none (its id came from a caller). */
  validationTargetById(organizationId: string, targetId: string) {
    return this.sql.one<StoredValidationTarget>(VALIDATION_TARGET_BY_ID, [targetId, organizationId]);
  }

  /**
   * The organization's targets of these ids (DescribeValidationTargets): registered targets, links by their derived
   * ids, and validation webhooks of the deprecated API by theirs.
   */
  describeValidationTargets(organizationId: string, targetIds: string[]) {
    return this.sql.rows<{ id: string; url: string; signatureVerification: SignatureVerification; createdAt: Date; updatedAt: Date }>(
      `SELECT id, url, signature_verification AS "signatureVerification", created_at AS "createdAt", created_at AS "updatedAt"
       FROM validation_targets
       WHERE organization_id = $1 AND id = ANY($2::uuid[])
       UNION ALL
       SELECT id, url, signature_verification, created_at, updated_at FROM webhooks
       WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND type IN ('document_validation', 'initial_document_validation')`,
      [organizationId, targetIds],
    );
  }

  /** A new receiver of validation calls (RegisterValidationTarget); targets never change. */
  async insertValidationTarget(target: {
    organizationId: string;
    url: string;
    signatureVerification: SignatureVerification;
  }): Promise<string> {
    const row = await this.sql.one<{ id: string }>(
      `INSERT INTO validation_targets (id, organization_id, url, signature_verification) VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id`,
      [target.organizationId, target.url, target.signatureVerification],
    );
    if (!row) throw new Error("INSERT … RETURNING answered no row");
    return row.id;
  }

  /**
   * Serialises the changes of one validation slot (an entity's validation webhook or a queue's link of a type, which
   * share the slot when the entity is the queue) until the transaction ends, so that "one per queue and type" holds
   * under concurrent requests and replicas.
   */
  async lockValidationSlot(entityId: string, type: ValidationType, tx: Tx): Promise<void> {
    await this.sql.rows(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`validation-slot:${entityId}:${type}`], tx);
  }

  /**
   * How many webhooks the organization has, counted after taking its lock until the transaction ends: concurrent
   * creations (on any replica) take turns, so the cap per organization holds.
   */
  async lockAndCountWebhooksOf(organizationId: string, tx: Tx): Promise<number> {
    await this.sql.rows(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`organization-webhooks:${organizationId}`], tx);
    const row = await this.sql.one<{ count: number }>(
      `SELECT count(*)::int AS count FROM webhooks WHERE organization_id = $1`,
      [organizationId],
      tx,
    );
    return row?.count ?? 0;
  }

  /** The oldest validation webhook of `type` attached to this entity itself (created through the deprecated POST /webhooks). */
  validationWebhookOf(entityType: EntityType, entityId: string, type: ValidationType, tx?: Tx): Promise<Webhook | undefined> {
    return this.sql.one<Webhook>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE entity_type = $1 AND entity_id = $2 AND type = $3 ORDER BY created_at, id LIMIT 1`,
      [entityType, entityId, type],
      tx,
    );
  }

  /**
   * Creates the organization's key, or rotates it: the current key, still sealed, becomes the previous one and
   * keeps signing beside the new one for `graceMs`. `created` is false for a rotation.
   */
  async saveSigningKey(
    key: { organizationId: string; keyId: string; sealedKey: string; kekFingerprint: string },
    graceMs: number,
    tx?: Tx,
  ): Promise<{ key: SealedSigningKey; created: boolean }> {
    const row = await this.sql.one<SealedSigningKey & { created: boolean }>(
      `INSERT INTO signing_keys (organization_id, key_id, sealed_key, kek_fingerprint) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id) DO UPDATE SET
         previous_key_id = signing_keys.key_id,
         previous_sealed_key = signing_keys.sealed_key,
         previous_kek_fingerprint = signing_keys.kek_fingerprint,
         previous_valid_until = now() + make_interval(secs => $5::double precision / 1000),
         key_id = EXCLUDED.key_id, sealed_key = EXCLUDED.sealed_key, kek_fingerprint = EXCLUDED.kek_fingerprint, created_at = now()
       RETURNING ${KEY_COLUMNS}, (xmax = 0) AS created`,
      [key.organizationId, key.keyId, key.sealedKey, key.kekFingerprint, graceMs],
      tx,
    );
    const { created, ...saved } = row!;
    return { key: saved, created };
  }

  findSigningKey(organizationId: string, tx?: Tx): Promise<SealedSigningKey | undefined> {
    return this.sql.one<SealedSigningKey>(`SELECT ${KEY_COLUMNS} FROM signing_keys WHERE organization_id = $1`, [organizationId], tx);
  }
}
