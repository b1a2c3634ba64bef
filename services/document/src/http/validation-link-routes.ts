import { actorOf } from "@docex/kit/auth";
import { type ApiDescription, dataOf } from "@docex/kit/http";
import { httpUrl, parseInput } from "@docex/kit/validation";
import type { Request, RequestHandler, Router } from "express";
import { z } from "zod";
import { FAILURE_POLICIES, VALIDATION_TYPES } from "../domain/validation.js";
import { SIGNATURE_VERIFICATIONS, type ValidationLinks, type ValidationLinkView } from "../domain/validation-links.js";

const API = "/api/v2";
const LINKS = `${API}/queues/{queue_id}/external-validation-links`;
const LINK = `${LINKS}/{type}`;
const TAGS = ["External validation links"];
const QUEUE_ID = { queue_id: "UUID or humanized id of the queue" };
const MEMBERSHIP_PROBLEMS = [503, 504];

export const validationLinkBody = z.strictObject({
  url: httpUrl,
  type: z.enum(VALIDATION_TYPES),
  signature_verification: z
    .enum(SIGNATURE_VERIFICATIONS)
    .nullish()
    .transform((value) => value ?? undefined),
  /** `allow` (default): an unavailable validator leaves a warning; `block`: an error, so the document cannot be exported. */
  failure_policy: z
    .enum(FAILURE_POLICIES)
    .nullish()
    .transform((value) => value ?? undefined),
});

const validationTypeParam = z.object({ type: z.enum(VALIDATION_TYPES) });

const URL_READ =
  "Whole for callers who may manage it (owner, supervisor, admin of its queue); for other readers masked: scheme, host, port and path, token-like path segments (8+ characters with a digit, or 24+) as ***, no query";

export const validationLinkSchema = z.strictObject({
  queue_id: z.guid(),
  type: z.enum(VALIDATION_TYPES),
  url: z.string().describe(URL_READ),
  signature_verification: z.enum(SIGNATURE_VERIFICATIONS),
  failure_policy: z
    .enum(FAILURE_POLICIES)
    .describe("`allow`: an unavailable or rejected validator leaves a warning; `block`: an error, which keeps the document from export"),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  webhook_id: z
    .guid()
    .nullable()
    .describe(
      "Null for a link saved here. Set when the queue's validator of this type is a validation webhook created through the deprecated " +
        "POST /webhooks on the queue, its workspace or its organization (spec: already moved to their queues); its failure policy is allow",
    ),
});

export function validationLinkDto(link: ValidationLinkView): z.infer<typeof validationLinkSchema> {
  return {
    queue_id: link.queueId,
    type: link.type,
    url: link.url,
    signature_verification: link.signatureVerification,
    failure_policy: link.failurePolicy,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
    webhook_id: link.webhookId,
  };
}

/**
 * POST, GET and DELETE /queues/{queue_id}/external-validation-links: which validator applies to a queue, and its
 * failure policy, is the queue's configuration (issue 41); the receiver itself is a target of the webhook service.
 */
export function validationLinkRoutes(api: ApiDescription, router: Router, signedIn: RequestHandler, links: ValidationLinks): void {
  const queueRef = (req: Request) => String(req.params.queue_id ?? "");
  api.route(
    router,
    {
      method: "post",
      path: LINKS,
      operationId: "saveExternalValidationLink",
      summary: "Create or update the queue's external validation link of a type",
      description:
        "One link per queue and type; a validation webhook of the queue itself (deprecated POST /webhooks) is replaced by it (200). " +
        "`signature_verification` and `failure_policy` left out: `disabled` and `allow` for a new link, " +
        "unchanged otherwise. `failure_policy: block` turns an unavailable or rejected validator into an error message on the document.",
      tags: TAGS,
      params: QUEUE_ID,
      body: validationLinkBody,
      responses: {
        201: { description: "Created", schema: dataOf(validationLinkSchema) },
        200: { description: "Updated", schema: dataOf(validationLinkSchema) },
      },
      problems: [403, 404, 409, 502, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      const { link, created } = await links.save(actorOf(req), queueRef(req), {
        url: body.url,
        type: body.type,
        ...(body.signature_verification ? { signatureVerification: body.signature_verification } : {}),
        ...(body.failure_policy ? { failurePolicy: body.failure_policy } : {}),
      });
      res.status(created ? 201 : 200).json({ data: validationLinkDto(link) });
    },
  );

  api.route(
    router,
    {
      method: "get",
      path: LINKS,
      operationId: "listExternalValidationLinks",
      summary: "List the queue's external validation links",
      description:
        "One per type: the queue's link, else the validation webhook created through the deprecated POST /webhooks on the queue, its " +
        "workspace or its organization that Validate calls (nearest first), with its `webhook_id`.",
      tags: TAGS,
      params: QUEUE_ID,
      // A list without filters: any query parameter is a 400 naming it (API.md), not silently dropped.
      query: z.strictObject({}),
      responses: { 200: { description: "The links that exist", schema: dataOf(z.array(validationLinkSchema)) } },
      problems: [404, 502, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      res.json({ data: (await links.list(actorOf(req), queueRef(req))).map(validationLinkDto) });
    },
  );

  api.route(
    router,
    {
      method: "delete",
      path: LINK,
      operationId: "deleteExternalValidationLink",
      summary: "Delete the queue's external validation link of a type",
      tags: TAGS,
      params: { ...QUEUE_ID, type: "initial_document_validation or document_validation" },
      responses: { 204: { description: "Deleted" } },
      problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      const { type } = parseInput(validationTypeParam, req.params, "path");
      await links.delete(actorOf(req), queueRef(req), type);
      res.status(204).end();
    },
  );
}
