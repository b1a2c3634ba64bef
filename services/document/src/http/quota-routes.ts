import { actorOf } from "@docex/kit/auth";
import { type ApiDescription, dataOf } from "@docex/kit/http";
import type { Request, RequestHandler, Router } from "express";
import { z } from "zod";
import type { OrganizationQuotas, Quotas, QuotaView } from "../domain/quotas.js";

const API = "/api/v2";
const MEMBERSHIP_PROBLEMS = [503, 504];
const ORGANIZATION_ID = "The organization: UUID or humanized id";

// Each answer's schema sits above the mapper that produces it, as in dto.ts.

const quotaSchema = z.object({
  limit: z.number().int().describe("What the organization may use"),
  used: z.number().int().describe("What it uses now (in the current period for the rates)"),
  default: z.number().int().describe("The configured value, which applies unless an owner chose another"),
  overridden: z.boolean().describe("Whether an owner chose the limit"),
  ceiling: z.number().int().describe("The most an owner may set"),
  resets_at: z.iso
    .datetime()
    .nullable()
    .describe("When the count starts again (the next minute, the next calendar month in UTC); null for stored bytes"),
});

export const organizationQuotasSchema = z.object({
  organization_id: z.guid(),
  stored_bytes: quotaSchema.describe("Bytes of the files of documents that are not deleted; an upload past it is 413"),
  uploads_per_minute: quotaSchema.describe("Accepted uploads in the current minute; past it 429"),
  documents_per_month: quotaSchema.describe("Documents added in the current calendar month (UTC); past it 429"),
});

function quotaDto(view: QuotaView): z.output<typeof quotaSchema> {
  return {
    limit: view.limit,
    used: view.used,
    default: view.default,
    overridden: view.overridden,
    ceiling: view.ceiling,
    resets_at: view.resetsAt ? view.resetsAt.toISOString() : null,
  };
}

export function organizationQuotasDto(quotas: OrganizationQuotas): z.output<typeof organizationQuotasSchema> {
  return {
    organization_id: quotas.organizationId,
    stored_bytes: quotaDto(quotas.storedBytes),
    uploads_per_minute: quotaDto(quotas.uploadsPerMinute),
    documents_per_month: quotaDto(quotas.documentsPerMonth),
  };
}

const quotaValue = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .optional()
    .describe(`${what}; null goes back to the configured default, absent keeps it as it is`);

export const quotaChangeBody = z.strictObject({
  stored_bytes: quotaValue("Bytes of files the organization may keep"),
  uploads_per_minute: quotaValue("Uploads per minute"),
  documents_per_month: quotaValue("Documents per calendar month"),
});

/** GET and PATCH /organizations/{organization_id}/quotas. */
export function quotaRoutes(api: ApiDescription, router: Router, signedIn: RequestHandler, quotas: Quotas): void {
  const organizationRef = (req: Request) => String(req.params.organization_id ?? "");
  api.route(
    router,
    {
      method: "get",
      path: `${API}/organizations/{organization_id}/quotas`,
      operationId: "getOrganizationQuotas",
      summary: "Read an organization's quotas and what it uses of them",
      description: "Any member. Stored bytes, uploads per minute and documents per calendar month, with when each starts again.",
      tags: ["Organizations"],
      params: { organization_id: ORGANIZATION_ID },
      responses: { 200: { description: "The quotas", schema: dataOf(organizationQuotasSchema) } },
      problems: [404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      res.json({ data: organizationQuotasDto(await quotas.view(actorOf(req), organizationRef(req))) });
    },
  );

  api.route(
    router,
    {
      method: "patch",
      path: `${API}/organizations/{organization_id}/quotas`,
      operationId: "updateOrganizationQuotas",
      summary: "Change an organization's quotas",
      description:
        "Owners. Each quota sent is set (up to its `ceiling`, else 400) or, with null, goes back to the configured default; " +
        "quotas not sent stay.",
      tags: ["Organizations"],
      params: { organization_id: ORGANIZATION_ID },
      body: quotaChangeBody,
      responses: { 200: { description: "The quotas after the change", schema: dataOf(organizationQuotasSchema) } },
      problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      const updated = await quotas.update(actorOf(req), organizationRef(req), {
        ...(body.stored_bytes === undefined ? {} : { storedBytes: body.stored_bytes }),
        ...(body.uploads_per_minute === undefined ? {} : { uploadsPerMinute: body.uploads_per_minute }),
        ...(body.documents_per_month === undefined ? {} : { documentsPerMonth: body.documents_per_month }),
      });
      res.json({ data: organizationQuotasDto(updated) });
    },
  );
}
