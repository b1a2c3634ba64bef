import type { Tx } from "@docex/kit/db";
import { ConflictError } from "@docex/kit/errors";
import type { WebhookStore } from "../store/webhook-store.js";
import type { SignatureVerification } from "./records.js";

/**
 * Why a delivery or validation call with signing on is not made when the organization has no key (rows saved
 * before the 409 below existed): fail closed, never unsigned.
 */
export const SIGNING_KEY_MISSING_REASON =
  "not sent: signature verification is enabled but the organization has no webhook signing key (create it, or disable signature verification)";

/**
 * API.md "Signing": `signature_verification: enabled` on a webhook or validation link of an organization without
 * a signing key is 409 `signing_key_missing`, since nothing could be signed or checked (spec "Signing" 1–2 must
 * both hold). Keys are never deleted, so a key seen here still exists when the change commits.
 */
export async function requireSigningKeyFor(
  store: Pick<WebhookStore, "findSigningKey">,
  organizationId: string,
  signatureVerification: SignatureVerification,
  /** Inside a transaction, its connection: a second one from the pool could wait on the first (pool exhaustion). */
  tx?: Tx,
): Promise<void> {
  if (signatureVerification !== "enabled") return;
  if (await store.findSigningKey(organizationId, tx)) return;
  throw new ConflictError(
    `Organization ${organizationId} has no webhook signing key, so signature_verification: enabled could neither sign requests nor check ` +
      `answers. Create the key first (POST /api/v2/organizations/${organizationId}/webhook-signing-key), or leave signature verification disabled.`,
    "signing_key_missing",
    [{ path: "signature_verification", message: "needs the organization's webhook signing key, which does not exist yet" }],
  );
}
