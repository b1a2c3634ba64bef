import { randomBytes, randomUUID } from "node:crypto";
import type { OutboxEvents } from "@docex/kit/bus";
import { BoundedCache } from "@docex/kit/cache";
import { SealedWithAnotherKeyError } from "@docex/kit/crypto";
import { NotFoundError } from "@docex/kit/errors";
import type { SealedKeyRef, SealedSigningKey, WebhookStore } from "../store/webhook-store.js";
import type { AccessControl, Actor } from "./access.js";
import { signingKeyChanged } from "./configuration-events.js";
import type { KeySealer } from "./key-sealing.js";

export interface SigningKey {
  organizationId: string;
  /** Names the key in events and answers; says nothing about its material. */
  keyId: string;
  /** 64 lowercase hex characters: 32 random bytes. */
  key: string;
  createdAt: Date;
  /** Until when the key before the last rotation still signs beside this one; null when none does. */
  previousValidUntil: Date | null;
}

/** Why a stored key does not open: said plainly, because the fix is configuration, not code. */
export class SigningKeyUnreadableError extends SealedWithAnotherKeyError {
  constructor(organizationId: string) {
    super(
      "WEBHOOK_KEY_ENCRYPTION_KEY",
      `WEBHOOK_KEY_ENCRYPTION_KEY does not open the signing key of organization ${organizationId}: it is not the key the signing keys were sealed with.`,
    );
    this.name = "SigningKeyUnreadableError";
  }
}

const sealingContext = (organizationId: string) => `webhook-signing-key:${organizationId}`;

/**
 * The organization's webhook signing key (spec "Signing"): created or rotated by owners and supervisors,
 * read by them, sealed at rest. Rotation takes effect for every attempt signed after it, retries included.
 */
export class SigningKeys {
  /** Opened keys by sealed text: a rotation changes the text, so nothing stale is ever served. */
  private readonly opened = new BoundedCache<string, string>({ maxEntries: 10_000 });

  constructor(
    private readonly store: WebhookStore,
    private readonly access: AccessControl,
    private readonly sealer: KeySealer,
    private readonly events: OutboxEvents,
    /** How long a rotated-out key keeps signing beside the new one (WEBHOOK_KEY_ROTATION_GRACE_MS). */
    private readonly rotationGraceMs: number,
  ) {}

  private async organizationOf(actor: Actor, organizationRef: string): Promise<string> {
    const organization = await this.access.visibleEntity(actor, "organization", organizationRef);
    const notFound = () => new NotFoundError(`No organization ${organizationRef}.`, "organization_not_found");
    await this.access.require(actor, "signing_key.manage", { organizationId: organization.entityId, queueId: null }, notFound);
    return organization.entityId;
  }

  /**
   * Creates the key, or replaces it (rotation; `created` false): the replaced key keeps signing beside the new
   * one for the grace window, so receivers can switch without losing a delivery. A rotation within the window
   * drops the key before the replaced one.
   */
  async createOrRotate(actor: Actor, organizationRef: string): Promise<{ key: SigningKey; created: boolean }> {
    const organizationId = await this.organizationOf(actor, organizationRef);
    const key = randomBytes(32).toString("hex");
    return this.store.transaction(async (tx) => {
      const saved = await this.store.saveSigningKey(
        {
          organizationId,
          keyId: randomUUID(),
          sealedKey: this.sealer.seal(key, sealingContext(organizationId)),
          kekFingerprint: this.sealer.fingerprint,
        },
        this.rotationGraceMs,
        tx,
      );
      const stored = saved.key;
      await this.events.add(
        tx,
        signingKeyChanged(actor, organizationId, stored, saved.created ? null : stored.previousKeyId, stored.previousValidUntil),
      );
      return { key: this.signingKeyOf(stored, key), created: saved.created };
    });
  }

  private signingKeyOf(stored: SealedSigningKey, key: string): SigningKey {
    const validUntil =
      stored.previousKeyId && stored.previousValidUntil && stored.previousValidUntil > new Date() ? stored.previousValidUntil : null;
    return { organizationId: stored.organizationId, keyId: stored.keyId, key, createdAt: stored.createdAt, previousValidUntil: validUntil };
  }

  /** 404 until the organization has a key. */
  async read(actor: Actor, organizationRef: string): Promise<SigningKey> {
    const organizationId = await this.organizationOf(actor, organizationRef);
    const stored = await this.store.findSigningKey(organizationId);
    if (!stored) {
      throw new NotFoundError("The organization has no webhook signing key yet; POST creates it.", "signing_key_not_found");
    }
    return this.signingKeyOf(stored, this.open(stored));
  }

  /** The key of a sealed row (deliveries and validation targets read it with what they send). */
  open(stored: SealedKeyRef): string {
    const cached = this.opened.get(stored.sealedKey);
    if (cached) return cached;
    if (stored.kekFingerprint !== this.sealer.fingerprint) throw new SigningKeyUnreadableError(stored.organizationId);
    let key: string;
    try {
      key = this.sealer.open(stored.sealedKey, sealingContext(stored.organizationId));
    } catch {
      throw new SigningKeyUnreadableError(stored.organizationId);
    }
    this.opened.set(stored.sealedKey, key);
    return key;
  }
}
