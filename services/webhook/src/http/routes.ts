import { type AccessTokenVerifier, actorOf, authenticate } from "@docex/kit/auth";
import { NotFoundError } from "@docex/kit/errors";
import { ApiDescription, dataOf, pageBody, pageOf } from "@docex/kit/http";
import { isUuid } from "@docex/kit/ids";
import type { Response, Router } from "express";
import type { Deliveries } from "../domain/deliveries.js";
import type { ReceiverHealth } from "../domain/receiver-health.js";
import type { EntityType, Webhook } from "../domain/records.js";
import type { SigningKeys } from "../domain/signing-keys.js";
import type { Webhooks } from "../domain/webhooks.js";
import {
  deliveryResponse,
  deliverySchema,
  receiverHealthResponse,
  receiverHealthSchema,
  signingKeyResponse,
  signingKeySchema,
  webhookListSchema,
  webhookResponse,
  webhookSchema,
  wholeListPagination,
} from "./responses.js";
import { createWebhookBody, deliveriesQuery, entityListQuery, patchWebhookBody } from "./schemas.js";

const API = "/api/v2";
const WEBHOOKS = `${API}/webhooks`;
const WEBHOOK = `${WEBHOOKS}/{webhook_id}`;
const DELIVERIES = `${WEBHOOK}/deliveries`;
const RETRY = `${DELIVERIES}/{delivery_id}/retry`;
const HEALTH = `${WEBHOOK}/health`;
const SIGNING_KEY = `${API}/organizations/{organization_id}/webhook-signing-key`;

const WEBHOOK_TAGS = ["Webhooks"];
const WEBHOOK_ID = { webhook_id: "UUID of the webhook" };
const ORGANIZATION_ID = { organization_id: "UUID or humanized id of the organization" };
const _QUEUE_ID = { queue_id: "UUID or humanized id of the queue" };
const DEPRECATION = { Deprecation: "`true` when the webhook is of a validation type (deprecated: use external validation links)" };

/** The four "webhooks of an entity" lists: path prefix, entity type, path parameter, its description, operation id. */
const ENTITY_LISTS: Array<[string, EntityType, string, string, string]> = [
  ["documents", "document", "document_id", "UUID of the document", "listDocumentWebhooks"],
  ["queues", "queue", "queue_id", "UUID or humanized id of the queue", "listQueueWebhooks"],
  ["workspaces", "workspace", "workspace_id", "UUID or humanized id of the workspace", "listWorkspaceWebhooks"],
  ["organizations", "organization", "organization_id", "UUID or humanized id of the organization", "listOrganizationWebhooks"],
];

export interface WebhookDomain {
  webhooks: Webhooks;
  deliveries: Deliveries;
  signingKeys: SigningKeys;
  health: ReceiverHealth;
}

export interface WebhookHttp {
  /** The operations below, published at GET /openapi.json. */
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Webhook and delivery ids are UUIDs; anything else names nothing (404, not a database error). */
function idOf(params: Record<string, string>, name: string, what: string): string {
  const value = params[name] ?? "";
  if (!isUuid(value)) throw new NotFoundError(`No ${what} ${value}.`, `${what}_not_found`);
  return value.toLowerCase();
}

/** API.md: validation webhooks created through POST /webhooks answer with `Deprecation: true`. */
function markDeprecated(res: Response, webhook: Webhook): void {
  if (webhook.deprecated) res.setHeader("deprecation", "true");
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every path needs an access token. */
export function webhookHttp(domain: WebhookDomain, verifier: AccessTokenVerifier): WebhookHttp {
  const { webhooks, deliveries, signingKeys, health } = domain;
  const api = new ApiDescription("webhook");
  const auth = authenticate(verifier);

  const routes = (router: Router) => {
    api.route(
      router,
      {
        method: "post",
        path: WEBHOOKS,
        operationId: "createWebhook",
        summary: "Create a webhook on an organization, workspace, queue or document",
        description:
          "The entity must exist in an organization of the caller, who must manage its queues. The url must reach a public address. " +
          "Validation types are deprecated here: use the queue's external validation links.",
        tags: WEBHOOK_TAGS,
        body: createWebhookBody,
        responses: {
          201: {
            description: "The webhook",
            schema: dataOf(webhookSchema),
            headers: { Location: "`/api/v2/webhooks/{id}` of the new webhook", ...DEPRECATION },
          },
        },
        problems: [403, 404, 409],
      },
      auth,
      async ({ body }, req, res) => {
        const webhook = await webhooks.create(actorOf(req), {
          url: body.url,
          entityType: body.entity_type,
          entityId: body.entity_id,
          type: body.type,
          signatureVerification: body.signature_verification,
          destinationId: body.destination_id,
        });
        markDeprecated(res, webhook);
        res
          .status(201)
          .location(`${WEBHOOKS}/${webhook.id}`)
          .json({ data: webhookResponse(webhook) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: WEBHOOK,
        operationId: "getWebhook",
        summary: "Get a webhook",
        tags: WEBHOOK_TAGS,
        params: WEBHOOK_ID,
        responses: { 200: { description: "The webhook", schema: dataOf(webhookSchema), headers: DEPRECATION } },
        problems: [404],
      },
      auth,
      async ({ params }, req, res) => {
        const webhook = await webhooks.read(actorOf(req), idOf(params, "webhook_id", "webhook"));
        markDeprecated(res, webhook);
        res.json({ data: webhookResponse(webhook) });
      },
    );

    api.route(
      router,
      {
        method: "patch",
        path: WEBHOOK,
        operationId: "updateWebhook",
        summary: "Change a webhook's url, signature verification or destination",
        description:
          "Fields left out stay as they are; `signature_verification: null` goes back to `disabled`. " +
          "A PATCH of a disabled webhook (even `{}`) enables it again and starts its run of failures afresh.",
        tags: WEBHOOK_TAGS,
        params: WEBHOOK_ID,
        body: patchWebhookBody,
        responses: { 200: { description: "The webhook", schema: dataOf(webhookSchema), headers: DEPRECATION } },
        problems: [403, 404, 409],
      },
      auth,
      async ({ body, params }, req, res) => {
        const id = idOf(params, "webhook_id", "webhook");
        const webhook = await webhooks.update(actorOf(req), id, {
          ...(body.url === undefined ? {} : { url: body.url }),
          ...(body.signature_verification === undefined ? {} : { signatureVerification: body.signature_verification }),
          ...(body.destination_id === undefined ? {} : { destinationId: body.destination_id }),
        });
        markDeprecated(res, webhook);
        res.json({ data: webhookResponse(webhook) });
      },
    );

    api.route(
      router,
      {
        method: "delete",
        path: WEBHOOK,
        operationId: "deleteWebhook",
        summary: "Delete a webhook, its deliveries and their attempts",
        tags: WEBHOOK_TAGS,
        params: WEBHOOK_ID,
        responses: { 204: { description: "Deleted" } },
        problems: [403, 404],
      },
      auth,
      async ({ params }, req, res) => {
        await webhooks.delete(actorOf(req), idOf(params, "webhook_id", "webhook"));
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: DELIVERIES,
        operationId: "listWebhookDeliveries",
        summary: "List a webhook's deliveries with their attempts, newest first",
        description: "`status` takes one status, several comma-separated, or the parameter repeated.",
        tags: WEBHOOK_TAGS,
        params: WEBHOOK_ID,
        query: deliveriesQuery,
        responses: { 200: { description: "A page of deliveries", schema: pageOf(deliverySchema) } },
        problems: [403, 404],
      },
      auth,
      async ({ params, query }, req, res) => {
        const id = idOf(params, "webhook_id", "webhook");
        const page = await deliveries.list(actorOf(req), id, query.status, { page: query.page, pageSize: query.page_size });
        res.json(pageBody(page.items, deliveryResponse, { page: query.page, pageSize: query.page_size, total: page.total }));
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: RETRY,
        operationId: "retryWebhookDelivery",
        summary: "Send a delivery again",
        description:
          "Whatever its status; the delivery is due at once and keeps its x-service-delivery-id. A finished delivery gets one more attempt.",
        tags: WEBHOOK_TAGS,
        params: { ...WEBHOOK_ID, delivery_id: "UUID of the delivery" },
        responses: { 202: { description: "The delivery, due now", schema: dataOf(deliverySchema) } },
        problems: [403, 404, 409],
      },
      auth,
      async ({ params }, req, res) => {
        const webhookId = idOf(params, "webhook_id", "webhook");
        const deliveryId = idOf(params, "delivery_id", "delivery");
        const delivery = await deliveries.retry(actorOf(req), webhookId, deliveryId);
        res.status(202).json({ data: deliveryResponse(delivery) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: HEALTH,
        operationId: "getWebhookHealth",
        summary: "How the webhook's receiver is doing over the last hour",
        description:
          "Success rate and latency of the attempts of the last hour (all replicas), the receiver's circuit breaker, the last success, " +
          "and when the current run of failures began.",
        tags: WEBHOOK_TAGS,
        params: WEBHOOK_ID,
        responses: { 200: { description: "The receiver's health", schema: dataOf(receiverHealthSchema) } },
        problems: [404],
      },
      auth,
      async ({ params }, req, res) => {
        const report = await health.of(actorOf(req), idOf(params, "webhook_id", "webhook"));
        res.json({ data: receiverHealthResponse(report) });
      },
    );

    for (const [prefix, entityType, param, description, operationId] of ENTITY_LISTS) {
      api.route(
        router,
        {
          method: "get",
          path: `${API}/${prefix}/{${param}}/webhooks`,
          operationId,
          summary: `List the webhooks attached to a ${entityType}`,
          description:
            "The entity's own webhooks, not those of its ancestors; oldest first. Without `page` and `page_size` every webhook of the " +
            "entity is returned (pagination then says page 1 of 1, `page_size` = `total`); with either, a page of `page_size` (default 20).",
          tags: WEBHOOK_TAGS,
          params: { [param]: description },
          query: entityListQuery,
          responses: { 200: { description: "The entity's webhooks, or a page of them", schema: webhookListSchema } },
          problems: [404],
        },
        auth,
        async ({ params, query }, req, res) => {
          const ref = params[param] ?? "";
          if (query.page === undefined && query.page_size === undefined) {
            const all = await webhooks.of(actorOf(req), entityType, ref);
            res.json({ data: all.items.map(webhookResponse), pagination: wholeListPagination(all.total) });
            return;
          }
          const [number, size] = [query.page ?? 1, query.page_size ?? 20];
          const page = await webhooks.of(actorOf(req), entityType, ref, { page: number, pageSize: size });
          res.json(pageBody(page.items, webhookResponse, { page: number, pageSize: size, total: page.total }));
        },
      );
    }

    api.route(
      router,
      {
        method: "get",
        path: SIGNING_KEY,
        operationId: "getWebhookSigningKey",
        summary: "Read the organization's webhook signing key",
        tags: WEBHOOK_TAGS,
        params: ORGANIZATION_ID,
        responses: { 200: { description: "WebhookSigningKeyDto", schema: dataOf(signingKeySchema) } },
        problems: [403, 404],
      },
      auth,
      async ({ params }, req, res) => {
        const key = await signingKeys.read(actorOf(req), params.organization_id ?? "");
        res.json({ data: signingKeyResponse(key) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: SIGNING_KEY,
        operationId: "createWebhookSigningKey",
        summary: "Create the organization's webhook signing key, or rotate it",
        description:
          "Owners and supervisors. 32 random bytes as 64 hex characters; a rotation signs every later attempt. For the grace window " +
          "(24 h by default) webhook-signature carries a signature with the previous key too, and validation answers signed with it are accepted.",
        tags: WEBHOOK_TAGS,
        params: ORGANIZATION_ID,
        responses: {
          201: {
            description: "The new key",
            schema: dataOf(signingKeySchema),
            headers: { Location: "This path, with the organization's UUID" },
          },
          200: { description: "The rotated key", schema: dataOf(signingKeySchema) },
        },
        problems: [403, 404],
      },
      auth,
      async ({ params }, req, res) => {
        const { key, created } = await signingKeys.createOrRotate(actorOf(req), params.organization_id ?? "");
        if (created) res.status(201).location(`${API}/organizations/${key.organizationId}/webhook-signing-key`);
        res.json({ data: signingKeyResponse(key) });
      },
    );

    api.refuseOtherMethods(router);
  };

  return { api, routes };
}
