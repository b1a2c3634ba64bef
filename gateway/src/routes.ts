import type { ServiceName } from "@docex/kit/config";

/**
 * The route table: every public path of the API (spec/api-v2.md and API.md), the service
 * that owns it and the methods it accepts. It is an allowlist: a path that is not here is
 * answered 404 by the gateway and never reaches a service.
 *
 * Templates are relative to `API_PREFIX`; `{name}` matches one non-empty path segment.
 */

export const API_PREFIX = "/api/v2";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** `public`: proxied without an access token; `token`: the gateway verifies the bearer token first. */
export type Access = "public" | "token";

export interface RouteDefinition {
  service: ServiceName;
  method: HttpMethod;
  /** Path template under `API_PREFIX`, e.g. `/queues/{queue_id}`. */
  path: string;
  access: Access;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
}

const MiB = 1024 * 1024;
/** API.md "Conventions": 1 MiB by default, 50 MiB for `POST /registers`. */
export const DEFAULT_BODY_LIMIT_BYTES = 1 * MiB;
export const REGISTER_UPLOAD_LIMIT_BYTES = 50 * MiB;
/**
 * Document uploads stream through: room for a file of DOCUMENT_MAX_FILE_BYTES' default (25 MiB) plus the multipart
 * framing and fields. The document service enforces its own limit exactly (413 too).
 */
export const DOCUMENT_UPLOAD_LIMIT_BYTES = 26 * MiB;

type Row = [method: HttpMethod, path: string, access?: Access, bodyLimitBytes?: number];

const PUBLIC: Access = "public";

/**
 * Logout is public because it carries the refresh token in its body, and a client must be
 * able to log out after its access token expired.
 */
const TABLE: Record<ServiceName, Row[]> = {
  auth: [
    ["POST", "/auth/login", PUBLIC],
    ["POST", "/auth/magic-link", PUBLIC],
    ["POST", "/auth/magic-login", PUBLIC],
    ["POST", "/auth/social-login", PUBLIC],
    ["POST", "/auth/refresh", PUBLIC],
    ["POST", "/auth/logout", PUBLIC],
    ["POST", "/auth/register", PUBLIC],
    ["POST", "/auth/verify-onboarding-pin", PUBLIC],
    ["POST", "/auth/password-reset", PUBLIC],
    ["GET", "/auth/password-change-token", PUBLIC],
    ["POST", "/auth/change-password", PUBLIC],
    ["POST", "/auth/accept-invitation", PUBLIC],
    ["GET", "/auth/.well-known/jwks.json", PUBLIC],
    ["POST", "/auth/totp"],
    ["DELETE", "/auth/totp"],
    ["POST", "/auth/totp/confirm"],
    ["DELETE", "/auth/me"],
  ],
  membership: [
    ["POST", "/organizations"],
    ["GET", "/organizations"],
    ["GET", "/organizations/{organization_id}"],
    ["PATCH", "/organizations/{organization_id}"],
    ["POST", "/organizations/{organization_id}/assign-roles"],
    ["POST", "/organizations/{organization_id}/manage-user-schema"],
    ["GET", "/organizations/{organization_id}/raw-memberships"],
    ["DELETE", "/organizations/{organization_id}/members/{user_id}/personal-data"],
  ],
  document: [
    ["GET", "/organizations/{organization_id}/workspaces"],
    ["GET", "/organizations/{organization_id}/quotas"],
    ["PATCH", "/organizations/{organization_id}/quotas"],
    // Which validator applies to a queue, and its failure policy, is queue configuration (issue 41).
    ["POST", "/queues/{queue_id}/external-validation-links"],
    ["GET", "/queues/{queue_id}/external-validation-links"],
    ["DELETE", "/queues/{queue_id}/external-validation-links/{type}"],
    ["POST", "/workspaces"],
    ["GET", "/workspaces/{workspace_id}"],
    ["PATCH", "/workspaces/{workspace_id}"],
    ["DELETE", "/workspaces/{workspace_id}"],
    ["GET", "/workspaces/{workspace_id}/queues"],
    ["POST", "/queues"],
    ["GET", "/queues/{queue_id}"],
    ["PATCH", "/queues/{queue_id}"],
    ["DELETE", "/queues/{queue_id}"],
    ["POST", "/queues/{queue_id}/inbox-email"],
    ["POST", "/queues/{queue_id}/documents", "token", DOCUMENT_UPLOAD_LIMIT_BYTES],
    ["GET", "/queues/{queue_id}/documents"],
    ["GET", "/queues/{queue_id}/document-counts"],
    ["GET", "/documents"],
    ["GET", "/documents/{document_id}"],
    ["GET", "/documents/{document_id}/file"],
    ["POST", "/documents/{document_id}/extraction"],
    ["PATCH", "/documents/{document_id}/annotations"],
    ["POST", "/documents/{document_id}/status"],
    ["POST", "/documents/{document_id}/approve"],
    ["POST", "/documents/{document_id}/reject"],
    // Exports (issue 38): the document service's export module.
    ["POST", "/documents/{document_id}/export-result"],
    ["POST", "/queues/{queue_id}/exports"],
    ["GET", "/queues/{queue_id}/exports"],
    ["PATCH", "/exports/{export_id}"],
    ["DELETE", "/exports/{export_id}"],
    ["POST", "/exports/{export_id}/runs"],
    ["GET", "/export-runs/{run_id}"],
    ["GET", "/export-runs/{run_id}/file"],
    ["POST", "/queues/{queue_id}/payment-batches"],
    ["GET", "/payment-batches/{batch_id}"],
    ["GET", "/payment-batches/{batch_id}/file"],
  ],
  automation: [
    ["PATCH", "/queues/{queue_id}/accounting-automation"],
    ["POST", "/queues/{queue_id}/accounting-automation-rules"],
    ["GET", "/queues/{queue_id}/accounting-automation-rules"],
    ["PUT", "/queues/{queue_id}/accounting-automation-rules/order"],
    ["PATCH", "/queues/{queue_id}/accounting-automation-rules/{automation_rule_id}"],
    ["DELETE", "/queues/{queue_id}/accounting-automation-rules/{automation_rule_id}"],
    ["POST", "/queues/{queue_id}/approval-automation"],
    ["GET", "/queues/{queue_id}/approval-automation"],
    ["PUT", "/queues/{queue_id}/approval-automation/order"],
    ["PATCH", "/queues/{queue_id}/approval-automation/{automation_rule_id}"],
    ["DELETE", "/queues/{queue_id}/approval-automation/{automation_rule_id}"],
    ["PATCH", "/queues/{queue_id}/automation-rules"],
    ["PUT", "/queues/{queue_id}/extraction-evaluation"],
    ["PATCH", "/queues/{queue_id}/extraction-evaluation"],
  ],
  learning: [
    ["POST", "/documents/{document_id}/learn"],
    ["POST", "/documents/{document_id}/relearn"],
    ["POST", "/queues/{queue_id}/relearn"],
  ],
  register: [
    ["POST", "/registers", "token", REGISTER_UPLOAD_LIMIT_BYTES],
    ["GET", "/registers/{register_id}/items"],
    ["GET", "/queues/{queue_id}/registers"],
  ],
  webhook: [
    ["POST", "/webhooks"],
    ["GET", "/webhooks/{webhook_id}"],
    ["PATCH", "/webhooks/{webhook_id}"],
    ["DELETE", "/webhooks/{webhook_id}"],
    ["GET", "/webhooks/{webhook_id}/deliveries"],
    ["POST", "/webhooks/{webhook_id}/deliveries/{delivery_id}/retry"],
    ["GET", "/webhooks/{webhook_id}/health"],
    ["GET", "/documents/{document_id}/webhooks"],
    ["GET", "/queues/{queue_id}/webhooks"],
    ["GET", "/workspaces/{workspace_id}/webhooks"],
    ["GET", "/organizations/{organization_id}/webhooks"],
    ["GET", "/organizations/{organization_id}/webhook-signing-key"],
    ["POST", "/organizations/{organization_id}/webhook-signing-key"],
  ],
  // Reads files and hands results to document; serves the pages of documents' files (the readers are its own).
  extraction: [
    ["GET", "/documents/{document_id}/pages"],
    ["GET", "/documents/{document_id}/pages/{page}"],
    ["GET", "/documents/{document_id}/pages/{page}/words"],
  ],
  // Takes mail over SMTP and hands documents to document; it has no public HTTP endpoint.
  intake: [],
  audit: [
    ["GET", "/organizations/{organization_id}/audit-log"],
    ["GET", "/documents/{document_id}/audit-log"],
  ],
};

export const ROUTES: readonly RouteDefinition[] = Object.entries(TABLE).flatMap(([service, rows]) =>
  rows.map(([method, path, access = "token", bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES]) => ({
    service: service as ServiceName,
    method,
    path,
    access,
    bodyLimitBytes,
  })),
);
