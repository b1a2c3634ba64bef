import type { FailurePolicy, ValidationType } from "../domain/records.js";
import type { SigningKeySet } from "../domain/signature.js";
import type { SigningKeys } from "../domain/signing-keys.js";
import type { WebhookStore } from "../store/webhook-store.js";

/** Where a document's validation call goes: the queue's link, or the nearest deprecated validation webhook. */
export interface ValidationTarget {
  /** The queue's own link, or a validation webhook of the deprecated API. */
  kind: "link" | "webhook";
  /**
   * The breaker of this link or webhook (and its metric label after `webhook:`): `link/<queue_id>/<type>` or
   * `validation-webhook/<webhook_id>`. Ids rather than URLs, so that a token in a URL stays out of labels.
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
    if (!target) return undefined;
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
      breakerKey: target.kind === "link" ? `link/${target.id}/${type}` : `validation-webhook/${target.id}`,
      url: target.url,
      signingKeys,
      failurePolicy: target.failurePolicy,
      signingKeyMissing: target.signatureVerification === "enabled" && !signingKeys,
    };
  }
}
