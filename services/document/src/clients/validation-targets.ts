import { ConflictError, ValidationError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createWebhookClient } from "@docex/protos";
import type { SignatureVerification, TargetDescription, ValidationTargets } from "../domain/validation-links.js";
import type { ReplacedWebhooks } from "../domain/validation-webhooks.js";

/**
 * The webhook service's registry of validation targets (RegisterValidationTarget, DescribeValidationTargets): the
 * receiver's URL, its SSRF checks and signing stay there; a queue's link here names the target by its id. And
 * DeleteValidationWebhook, for a validation webhook of the deprecated API that a queue's link replaced.
 */
export function validationTargetsClient(
  address: string,
  options: { identity: GrpcIdentity; metrics: Metrics; deadlineMs: number },
): ValidationTargets & ReplacedWebhooks & { close(): void } {
  const client = createWebhookClient(address, { ...options, breaker: { volumeThreshold: 5, resetTimeoutMs: 10_000 } });
  return {
    async register(target, ctx) {
      try {
        const registered = await client.registerValidationTarget(
          { organization_id: target.organizationId, url: target.url, signature_verification: target.signatureVerification },
          ctx.requestId ? { requestId: ctx.requestId } : {},
        );
        return { targetId: registered.target_id };
      } catch (error) {
        // The body's URL was checked here already: what the webhook service refuses is the address (its SSRF rules),
        // or signing without the organization's key. The same problems as when it answered the route itself.
        if (error instanceof ValidationError) {
          throw new ValidationError(error.message, [{ path: "url", message: error.message }], "url_not_allowed");
        }
        if (error instanceof ConflictError) {
          throw new ConflictError(error.message, "signing_key_missing", [
            { path: "signature_verification", message: "needs the organization's webhook signing key, which does not exist yet" },
          ]);
        }
        throw error;
      }
    },
    async describe(organizationId, targetIds, ctx) {
      if (targetIds.length === 0) return new Map();
      const described = await client.describeValidationTargets(
        { organization_id: organizationId, target_ids: targetIds },
        ctx.requestId ? { requestId: ctx.requestId } : {},
      );
      return new Map<string, TargetDescription>(
        described.targets.map((target) => [
          target.target_id,
          {
            url: target.url,
            maskedUrl: target.masked_url,
            signatureVerification: (target.signature_verification === "enabled" ? "enabled" : "disabled") as SignatureVerification,
            createdAt: new Date(target.created_at),
            updatedAt: new Date(target.updated_at || target.created_at),
          },
        ]),
      );
    },
    async deleteValidationWebhook(organizationId, webhookId, actorUserId, requestId) {
      await client.deleteValidationWebhook(
        { organization_id: organizationId, webhook_id: webhookId, actor_user_id: actorUserId ?? "" },
        requestId ? { requestId } : {},
      );
    },
    close: () => client.close(),
  };
}
