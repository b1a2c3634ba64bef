import type { FailurePolicy, SignatureVerification, ValidationType } from "../domain/records.js";
import type { SigningKeySet } from "../domain/signature.js";
import type { SigningKeys } from "../domain/signing-keys.js";
import { requireSigningKeyFor } from "../domain/signing-requirement.js";
import { requireAllowedTarget } from "../domain/target-check.js";
import type { TargetPolicy } from "../domain/target-policy.js";
import { maskUrl } from "../domain/url-masking.js";
import type { StoredValidationTarget, WebhookStore } from "../store/webhook-store.js";

/** Where a document's validation call goes: the queue's link, or the nearest deprecated validation webhook. */
export interface ValidationTarget {
  /** The queue's own link, a validation webhook of the deprecated API, or a registered target (called by id only). */
  kind: "link" | "webhook" | "target";
  /**
   * The breaker of this link or webhook (and its metric label after `webhook:`): `link/<queue_id>/<type>`,
   * `validation-webhook/<webhook_id>` or `validation-target/<target_id>`. Ids rather than URLs, so that a token in a URL stays out of labels.
   */
  breakerKey: string;
  url: string;
  /**
   * The keys that sign the call and check the answer: signing on and the organization has a key. The
   * previous key during a rotation's grace window: the call carries its signature too, and an answer signed
   * with it is accepted.
   */
  signingKeys: SigningKeySet | undefined;
  /** What the document service makes of an unavailable or rejected answer (deprecated webhooks: `allow`). */
  failurePolicy: FailurePolicy;
  /** Signing is on but the organization has no key: the target is not called (fail closed), the outcome is `unavailable`. */
  signingKeyMissing: boolean;
}

export interface DocumentScope {
  documentId: string;
  queueId: string;
  workspaceId: string;
  organizationId: string;
}

/**
 * Finds the validator of a document (spec "Versioning" 2–3, API.md "Webhooks"): the queue's external
 * validation link of the type; where the queue has none, the nearest validation webhook created through the
 * deprecated `POST /webhooks` (document, queue, workspace, organization; the oldest at that level). One target
 * answers: the others are not called, since a document takes one answer. Signing follows deliveries: with
 * signing on but no key in the organization, nothing is called (fail closed: never unsigned, never unchecked).
 */
export class ValidationTargets {
  constructor(
    private readonly store: WebhookStore,
    private readonly keys: SigningKeys,
  ) {}

  async find(type: ValidationType, scope: DocumentScope): Promise<ValidationTarget | undefined> {
    const target = await this.store.validationTarget(type, scope);
    return target ? this.opened(type, target) : undefined;
  }

  /** The target the caller chose (Validate's `target_id`); undefined when there is none of that id. */
  async byId(type: ValidationType, organizationId: string, targetId: string): Promise<ValidationTarget | undefined> {
    const target = await this.store.validationTargetById(organizationId, targetId);
    return target ? this.opened(type, target) : undefined;
  }

  private opened(type: ValidationType, target: StoredValidationTarget): ValidationTarget {
    const { sealedKey, kekFingerprint, previousSealedKey, previousKekFingerprint, organizationId } = target;
    let signingKeys: SigningKeySet | undefined;
    if (sealedKey && kekFingerprint) {
      signingKeys = { current: this.keys.open({ organizationId, sealedKey, kekFingerprint }) };
      if (previousSealedKey && previousKekFingerprint) {
        signingKeys.previous = this.keys.open({ organizationId, sealedKey: previousSealedKey, kekFingerprint: previousKekFingerprint });
      }
    }
    return {
      kind: target.kind,
      breakerKey:
        target.kind === "link"
          ? `link/${target.id}/${type}`
          : target.kind === "target"
            ? `validation-target/${target.id}`
            : `validation-webhook/${target.id}`,
      url: target.url,
      signingKeys,
      failurePolicy: target.failurePolicy,
      signingKeyMissing: target.signatureVerification === "enabled" && !signingKeys,
    };
  }
}

/**
 * RegisterValidationTarget: a receiver of validation calls, checked as a link's URL is (the SSRF rules: 400
 * `url_not_allowed`; signing on needs the organization's key: 409 `signing_key_missing`), stored under a new id.
 * The caller (the document service) keeps which validator applies to a queue, with its failure policy, and commits
 * the id with it; a target it never commits is never called.
 */
export class ValidationTargetRegistry {
  constructor(
    private readonly store: WebhookStore,
    private readonly policy: TargetPolicy,
  ) {}

  async register(target: {
    organizationId: string;
    url: string;
    signatureVerification: SignatureVerification;
  }): Promise<{ targetId: string; maskedUrl: string }> {
    await requireAllowedTarget(this.policy, target.url);
    await requireSigningKeyFor(this.store, target.organizationId, target.signatureVerification);
    const targetId = await this.store.insertValidationTarget(target);
    return { targetId, maskedUrl: maskUrl(target.url) };
  }

  /** The organization's targets of these ids, with their URL masked as readers below its managers see it. */
  async describe(organizationId: string, targetIds: string[]) {
    if (targetIds.length === 0) return [];
    const rows = await this.store.describeValidationTargets(organizationId, targetIds);
    return rows.map((row) => ({
      targetId: row.id,
      url: row.url,
      maskedUrl: maskUrl(row.url),
      signatureVerification: row.signatureVerification,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    }));
  }
}
