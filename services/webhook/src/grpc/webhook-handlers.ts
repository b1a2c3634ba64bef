import { annotationSchema } from "@docex/annotations";
import { ValidationError } from "@docex/kit/errors";
import { fieldErrorsOf, httpUrl } from "@docex/kit/validation";
import { jsonText, toJsonText, validationAnswerJson, type WebhookCallers, type WebhookHandlers } from "@docex/protos";
import { z } from "zod";
import { SIGNATURE_VERIFICATION, VALIDATION_TYPES } from "../domain/records.js";
import type { Webhooks } from "../domain/webhooks.js";
import type { ExternalValidation } from "../validation/external-validation.js";
import type { ValidationTargetRegistry } from "../validation/validation-targets.js";

const uuid = z.guid().transform((id) => id.toLowerCase());

// The payload's form (API.md): a property this service does not know yet (a newer document service) is dropped.
const annotationsJson = jsonText(z.array(annotationSchema), []);

const validateRequest = z.object({
  type: z.enum(VALIDATION_TYPES),
  document_id: uuid,
  queue_id: uuid,
  workspace_id: uuid,
  organization_id: uuid,
  user_id: uuid.optional(),
  previous_annotations_json: annotationsJson,
  annotations_json: annotationsJson,
  timeout_ms: z.number().int().min(0),
  // Empty: the older lookup of the queue's link or nearest deprecated validation webhook.
  target_id: z.union([z.literal(""), uuid]),
});

const registerTargetRequest = z.object({
  organization_id: uuid,
  url: httpUrl,
  signature_verification: z.enum(SIGNATURE_VERIFICATION),
});

/** A gRPC request that fails its schema: INVALID_ARGUMENT naming every bad field (gRPC carries one message). */
function invalidRequest(method: string, error: z.ZodError): ValidationError {
  const errors = fieldErrorsOf(error);
  return new ValidationError(`The ${method} request is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`, errors);
}

const describeTargetsRequest = z.object({
  organization_id: uuid,
  target_ids: z.array(uuid).max(100),
});

const deleteValidationWebhookRequest = z.object({
  organization_id: uuid,
  webhook_id: uuid,
  actor_user_id: z.union([z.literal(""), uuid]),
});

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call webhook today: a new caller is added here.
 */
export const webhookCallers: WebhookCallers = {
  // document: document_validation and initial_document_validation answers.
  Validate: ["document"],
  // document: a queue's link replaced the queue's validation webhook of the deprecated API.
  DeleteValidationWebhook: ["document"],
  // document: a queue's external validation link names the target it registered.
  RegisterValidationTarget: ["document"],
  // document: the URLs its link lists show.
  DescribeValidationTargets: ["document"],
};

/** docex.webhook.v1.Webhook: what other contexts ask of the integration context. Callers are services inside the cluster. */
export function webhookHandlers(deps: {
  validation: ExternalValidation;
  webhooks: Pick<Webhooks, "deleteReplaced">;
  targets: ValidationTargetRegistry;
}): WebhookHandlers {
  return {
    async RegisterValidationTarget(raw) {
      const parsed = registerTargetRequest.safeParse(raw);
      if (!parsed.success) throw invalidRequest("RegisterValidationTarget", parsed.error);
      const { organization_id: organizationId, url, signature_verification: signatureVerification } = parsed.data;
      const registered = await deps.targets.register({ organizationId, url, signatureVerification });
      return { target_id: registered.targetId, masked_url: registered.maskedUrl };
    },
    async DescribeValidationTargets(raw) {
      const parsed = describeTargetsRequest.safeParse(raw);
      if (!parsed.success) throw invalidRequest("DescribeValidationTargets", parsed.error);
      const targets = await deps.targets.describe(parsed.data.organization_id, parsed.data.target_ids);
      return {
        targets: targets.map((target) => ({
          target_id: target.targetId,
          url: target.url,
          masked_url: target.maskedUrl,
          signature_verification: target.signatureVerification,
          created_at: target.createdAt.toISOString(),
          updated_at: target.updatedAt.toISOString(),
        })),
      };
    },
    async DeleteValidationWebhook(raw, ctx) {
      const parsed = deleteValidationWebhookRequest.safeParse(raw);
      if (!parsed.success) throw invalidRequest("DeleteValidationWebhook", parsed.error);
      const { organization_id: organizationId, webhook_id: webhookId, actor_user_id: userId } = parsed.data;
      const actor = userId ? { userId, requestId: ctx.requestId ?? "" } : null;
      return { deleted: await deps.webhooks.deleteReplaced(organizationId, webhookId, actor) };
    },
    async Validate(raw, ctx) {
      const parsed = validateRequest.safeParse(raw);
      if (!parsed.success) {
        // gRPC carries one message: it names every bad field.
        const errors = fieldErrorsOf(parsed.error);
        throw new ValidationError(`The Validate request is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`, errors);
      }
      const request = parsed.data;
      const outcome = await deps.validation.validate({
        type: request.type,
        documentId: request.document_id,
        queueId: request.queue_id,
        workspaceId: request.workspace_id,
        organizationId: request.organization_id,
        userId: request.user_id ?? null,
        previousAnnotations: request.previous_annotations_json,
        annotations: request.annotations_json,
        timeoutMs: request.timeout_ms,
        ...(request.target_id === "" ? {} : { targetId: request.target_id }),
        ...(ctx.deadlineAt === undefined ? {} : { deadlineAt: ctx.deadlineAt }),
        requestId: ctx.requestId,
      });
      switch (outcome.outcome) {
        case "ok":
          return {
            outcome: "ok",
            reason: "",
            answer_json: toJsonText(validationAnswerJson, outcome.answer),
            duration_ms: outcome.durationMs,
            failure_policy: outcome.failurePolicy,
            link_open_for_ms: 0,
          };
        case "no_validator":
          return {
            outcome: "no_validator",
            reason: "",
            answer_json: EMPTY_ANSWER_JSON,
            duration_ms: 0,
            failure_policy: "allow",
            link_open_for_ms: 0,
          };
        default:
          return {
            outcome: outcome.outcome,
            reason: outcome.reason,
            answer_json: EMPTY_ANSWER_JSON,
            duration_ms: outcome.durationMs,
            failure_policy: outcome.failurePolicy,
            link_open_for_ms: outcome.linkOpenUntil === undefined ? 0 : Math.max(0, Math.round(outcome.linkOpenUntil - Date.now())),
          };
      }
    },
  };
}

/** "always complete" (protos/webhook.proto): outcomes without an answer carry the empty one. */
const EMPTY_ANSWER_JSON = toJsonText(validationAnswerJson, { replacements: [], messages: [], cells: [], options: {} });
