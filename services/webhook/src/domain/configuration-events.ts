import { createEvent, type DocexEvent } from "@docex/events";
import type { Actor } from "./access.js";
import type { Webhook } from "./records.js";

type ConfigurationChanged = DocexEvent<"configuration.changed">;
type Change = ConfigurationChanged["data"]["change"];

/**
 * A URL as the audit log shows it: query values replaced, because integrators put tokens there (the API
 * refuses user and password in URLs already). The path stays: it is what tells two receivers apart.
 */
export function auditUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of new Set(parsed.searchParams.keys())) parsed.searchParams.set(name, "redacted");
  parsed.hash = "";
  return parsed.toString();
}

/** A webhook's configuration as events carry it: no secrets (there are none on a webhook but its URL's query). */
export function webhookState(webhook: Webhook) {
  return {
    url: auditUrl(webhook.url),
    entity_type: webhook.entityType,
    entity_id: webhook.entityId,
    type: webhook.type,
    signature_verification: webhook.signatureVerification,
    destination_id: webhook.destinationId,
    status: webhook.status,
    disabled_reason: webhook.disabledReason,
  };
}

/** `configuration.changed` with the acting user (null when the service acted on its own) and the request it came with. */
function configurationChanged(organizationId: string, actor: Actor | null, data: ConfigurationChanged["data"]): ConfigurationChanged {
  return createEvent("configuration.changed", {
    organization_id: organizationId,
    actor_user_id: actor?.userId ?? null,
    ...(actor?.requestId ? { request_id: actor.requestId } : {}),
    data,
  });
}

export function webhookChanged(actor: Actor | null, change: Change, before: Webhook | null, after: Webhook | null): ConfigurationChanged {
  const webhook = (after ?? before)!;
  return configurationChanged(webhook.organizationId, actor, {
    resource: "webhook",
    resource_id: webhook.id,
    queue_id: webhook.queueId,
    change,
    previous: before ? webhookState(before) : null,
    current: after ? webhookState(after) : null,
  });
}

/** A signing key is named by its id only, never by anything derived from its material. */
export function signingKeyChanged(
  actor: Actor,
  organizationId: string,
  current: { keyId: string; createdAt: Date },
  previousKeyId: string | null,
  previousValidUntil: Date | null,
): ConfigurationChanged {
  return configurationChanged(organizationId, actor, {
    resource: "signing_key",
    resource_id: current.keyId,
    queue_id: null,
    change: previousKeyId ? "rotated" : "created",
    previous: previousKeyId ? { key_id: previousKeyId, valid_until: previousValidUntil ? previousValidUntil.toISOString() : null } : null,
    current: { key_id: current.keyId, created_at: current.createdAt.toISOString() },
  });
}
