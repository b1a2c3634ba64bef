import { type AccessTokenVerifier, authenticate, callerOf } from "@docex/kit/auth";
import { ApiDescription, expressPath, pageBody, pageOf } from "@docex/kit/http";
import type { Router } from "express";
import type { z } from "zod";
import type { AuditLog, AuditPage } from "../domain/audit-log.js";
import { auditEntryResponse, auditEntrySchema } from "./responses.js";
import { auditLogQuery } from "./schemas.js";

const ORGANIZATION_AUDIT_LOG = "/api/v2/organizations/{organization_id}/audit-log";
const DOCUMENT_AUDIT_LOG = "/api/v2/documents/{document_id}/audit-log";
const AUDIT_TAGS = ["Audit log"];

export interface AuditHttp {
  /** The operations below, published at GET /openapi.json. */
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every path needs an access token. */
export function auditHttp(auditLog: AuditLog, verifier: AccessTokenVerifier): AuditHttp {
  const api = new ApiDescription("audit");

  const routes = (router: Router) => {
    for (const path of [ORGANIZATION_AUDIT_LOG, DOCUMENT_AUDIT_LOG]) router.use(expressPath(path), authenticate(verifier));

    const auditLogPage = (query: z.infer<typeof auditLogQuery>, found: AuditPage) =>
      pageBody(found.entries, auditEntryResponse, { page: query.page, pageSize: query.page_size, total: found.total });
    const auditQueryOf = (query: z.infer<typeof auditLogQuery>) => ({
      order: query.order,
      ...(query.type ? { types: query.type } : {}),
      ...(query.user_id ? { userId: query.user_id.toLowerCase() } : {}),
      ...(query.from ? { from: new Date(query.from) } : {}),
      ...(query.to ? { to: new Date(query.to) } : {}),
    });
    const pageWindow = (query: z.infer<typeof auditLogQuery>) => ({ offset: (query.page - 1) * query.page_size, limit: query.page_size });
    const AUDIT_DESCRIPTION =
      "Every state change a user, an integration or the system made, from the events the services publish: who " +
      "(user_id), when, what (details, with values before and after) and from which request. Owners and supervisors only. " +
      "Entries appear once the change's event is consumed (usually within milliseconds); they are kept AUDIT_RETENTION_DAYS (365 by default).";

    // The two logs differ only in their scope: one parameter names it, and the domain resolves who may read it.
    const logs = [
      {
        path: ORGANIZATION_AUDIT_LOG,
        operationId: "getOrganizationAuditLog",
        summary: "The organization's audit log, filtered by type, user and time",
        param: "organization_id",
        described: "UUID or humanized id of the organization",
        read: "ofOrganization" as const,
      },
      {
        path: DOCUMENT_AUDIT_LOG,
        operationId: "getDocumentAuditLog",
        summary: "The audit log of one document: its upload, extraction, edits with values before and after, and status changes",
        param: "document_id",
        described: "UUID of the document",
        read: "ofDocument" as const,
      },
    ];
    for (const log of logs) {
      api.route(
        router,
        {
          method: "get",
          path: log.path,
          operationId: log.operationId,
          summary: log.summary,
          description: AUDIT_DESCRIPTION,
          tags: AUDIT_TAGS,
          params: { [log.param]: log.described },
          query: auditLogQuery,
          responses: { 200: { description: "A page of audit entries", schema: pageOf(auditEntrySchema) } },
          problems: [403, 404],
        },
        async ({ query }, req, res) => {
          const scope = String(req.params[log.param]);
          const found = await auditLog[log.read](scope, callerOf(req).userId, auditQueryOf(query), pageWindow(query), {
            requestId: req.requestId,
          });
          res.json(auditLogPage(query, found));
        },
      );
    }
    api.refuseOtherMethods(router);
  };

  return { api, routes };
}
