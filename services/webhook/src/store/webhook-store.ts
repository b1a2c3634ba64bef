import type { EntityType, Page, Paged, SignatureVerification, ValidationLink, ValidationType, Webhook } from "../domain/records.js";
import type { Sql } from "./sql.js";

const WEBHOOK_COLUMNS = `id, url, entity_type AS "entityType", entity_id AS "entityId", organization_id AS "organizationId",
  workspace_id AS "workspaceId", queue_id AS "queueId", type, signature_verification AS "signatureVerification",
  destination_id AS "destinationId", deprecated, created_at AS "createdAt", updated_at AS "updatedAt"`;

const LINK_COLUMNS = `queue_id AS "queueId", type, organization_id AS "organizationId", workspace_id AS "workspaceId", url,
  signature_verification AS "signatureVerification", created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface SealedSigningKey {
  organizationId: string;
  sealedKey: string;
  kekFingerprint: string;
  createdAt: Date;
}

/** A link (id: its queue) or a deprecated validation webhook (id: the webhook's), with the key that signs for it. */
export interface StoredValidationTarget {
  kind: "link" | "webhook";
  id: string;
  url: string;
  organizationId: string;
  signatureVerification: SignatureVerification;
  /** Null when signing is off for the target or the organization has no key. */
  sealedKey: string | null;
  kekFingerprint: string | null;
}

export interface WebhookChange {
  url?: string;
  signatureVerification?: SignatureVerification;
  destinationId?: string | null;
}

/** Webhooks, validation links and signing keys; answers are plain objects. */
export class WebhookStore {
  constructor(private readonly sql: Sql) {}

  async insertWebhook(webhook: Omit<Webhook, "createdAt" | "updatedAt">): Promise<Webhook> {
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
    );
    return row!;
  }

  findWebhook(id: string): Promise<Webhook | undefined> {
    return this.sql.one<Webhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
  }

  /** Undefined when the webhook is gone. */
  updateWebhook(id: string, change: WebhookChange): Promise<Webhook | undefined> {
    return this.sql.one<Webhook>(
      `UPDATE webhooks SET
         url = CASE WHEN $2::boolean THEN $3 ELSE url END,
         signature_verification = CASE WHEN $4::boolean THEN $5 ELSE signature_verification END,
         destination_id = CASE WHEN $6::boolean THEN $7::uuid ELSE destination_id END,
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
      ],
    );
  }

  /** Its deliveries and their attempts go with it. */
  async deleteWebhook(id: string): Promise<boolean> {
    const rows = await this.sql.rows(`DELETE FROM webhooks WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }

  /** The webhooks attached to one entity itself, oldest first. */
  async webhooksOf(entityType: EntityType, entityId: string, page: Page): Promise<Paged<Webhook>> {
    const [items, count] = await Promise.all([
      this.sql.rows<Webhook>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE entity_type = $1 AND entity_id = $2
         ORDER BY created_at, id LIMIT $3 OFFSET $4`,
        [entityType, entityId, page.pageSize, (page.page - 1) * page.pageSize],
      ),
      this.sql.one<{ total: number }>(`SELECT count(*)::int AS total FROM webhooks WHERE entity_type = $1 AND entity_id = $2`, [
        entityType,
        entityId,
      ]),
    ]);
    return { items, total: count?.total ?? 0 };
  }

  /**
   * Where a document's validation call of `type` goes, in one round trip (it is on the path of every edit): the
   * queue's link, else the nearest deprecated validation webhook (document, queue, workspace, organization; the
   * oldest at that level), with the organization's sealed signing key when that target has signing on.
   */
  validationTarget(type: ValidationType, scope: { documentId: string; queueId: string; workspaceId: string; organizationId: string }) {
    return this.sql.one<StoredValidationTarget>(
      `WITH candidates AS (
         SELECT 'link' AS kind, queue_id AS id, url, organization_id, signature_verification, 0 AS rank, created_at
         FROM validation_links WHERE queue_id = $2 AND type = $1
         UNION ALL
         SELECT 'webhook', id, url, organization_id, signature_verification,
                array_position(ARRAY['document', 'queue', 'workspace', 'organization'], entity_type), created_at
         FROM webhooks
         WHERE type = $1 AND (entity_type, entity_id) IN (('document', $3::uuid), ('queue', $2::uuid), ('workspace', $4::uuid), ('organization', $5::uuid))
       )
       SELECT c.kind, c.id, c.url, c.organization_id AS "organizationId", c.signature_verification AS "signatureVerification",
              k.sealed_key AS "sealedKey", k.kek_fingerprint AS "kekFingerprint"
       FROM candidates c LEFT JOIN signing_keys k ON k.organization_id = c.organization_id AND c.signature_verification = 'enabled'
       ORDER BY c.rank, c.created_at, c.id LIMIT 1`,
      [type, scope.queueId, scope.documentId, scope.workspaceId, scope.organizationId],
    );
  }

  /** Creates or replaces the link of a queue and type; `created` tells which. */
  async upsertValidationLink(
    link: Omit<ValidationLink, "createdAt" | "updatedAt" | "signatureVerification"> & { signatureVerification?: SignatureVerification },
  ): Promise<{ link: ValidationLink; created: boolean }> {
    const row = await this.sql.one<ValidationLink & { created: boolean }>(
      `INSERT INTO validation_links (queue_id, type, organization_id, workspace_id, url, signature_verification)
       VALUES ($1, $2, $3, $4, $5, COALESCE($6, 'disabled'))
       ON CONFLICT (queue_id, type) DO UPDATE SET
         url = EXCLUDED.url,
         signature_verification = COALESCE($6, validation_links.signature_verification),
         updated_at = now()
       RETURNING ${LINK_COLUMNS}, (xmax = 0) AS created`,
      [link.queueId, link.type, link.organizationId, link.workspaceId, link.url, link.signatureVerification ?? null],
    );
    const { created, ...saved } = row!;
    return { link: saved, created };
  }

  validationLinksOf(queueId: string): Promise<ValidationLink[]> {
    return this.sql.rows<ValidationLink>(`SELECT ${LINK_COLUMNS} FROM validation_links WHERE queue_id = $1 ORDER BY type`, [queueId]);
  }

  async deleteValidationLink(queueId: string, type: ValidationType): Promise<boolean> {
    const rows = await this.sql.rows(`DELETE FROM validation_links WHERE queue_id = $1 AND type = $2 RETURNING queue_id`, [queueId, type]);
    return rows.length > 0;
  }

  /** Creates or replaces the organization's key; `created` is false for a rotation. */
  async saveSigningKey(key: Omit<SealedSigningKey, "createdAt">): Promise<{ key: SealedSigningKey; created: boolean }> {
    const row = await this.sql.one<SealedSigningKey & { created: boolean }>(
      `INSERT INTO signing_keys (organization_id, sealed_key, kek_fingerprint) VALUES ($1, $2, $3)
       ON CONFLICT (organization_id) DO UPDATE SET sealed_key = EXCLUDED.sealed_key, kek_fingerprint = EXCLUDED.kek_fingerprint,
         created_at = now()
       RETURNING organization_id AS "organizationId", sealed_key AS "sealedKey", kek_fingerprint AS "kekFingerprint",
         created_at AS "createdAt", (xmax = 0) AS created`,
      [key.organizationId, key.sealedKey, key.kekFingerprint],
    );
    const { created, ...saved } = row!;
    return { key: saved, created };
  }

  findSigningKey(organizationId: string): Promise<SealedSigningKey | undefined> {
    return this.sql.one<SealedSigningKey>(
      `SELECT organization_id AS "organizationId", sealed_key AS "sealedKey", kek_fingerprint AS "kekFingerprint", created_at AS "createdAt"
       FROM signing_keys WHERE organization_id = $1`,
      [organizationId],
    );
  }
}
