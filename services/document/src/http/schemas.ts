import { annotationSchemaInput } from "@docex/annotations";
import { humanizedIdInput } from "@docex/domain/humanized-id";
import { DOCUMENT_STATUSES } from "@docex/events";
import { firstOf, firstValuePageQuery } from "@docex/kit/http";
import { documentLifetimeDays } from "@docex/queue-dto";
import { z } from "zod";
import { annotationsInput } from "../domain/annotations.js";
import { EXTRACTION_ENGINES } from "../domain/records.js";
import { DOCUMENT_SORTS } from "../store/document-store.js";

const name = z.string().trim().min(1).max(200);
const idOrHumanized = z.string().trim().min(1).max(100).describe("UUID or humanized id");
const confidence = z.number().min(0).max(100);

export const createWorkspaceBody = z.strictObject({
  organization_id: idOrHumanized,
  name,
  humanized_id: humanizedIdInput.optional(),
});

export const createQueueBody = z.strictObject({
  workspace_id: idOrHumanized,
  name,
  humanized_id: humanizedIdInput.optional(),
  annotation_schema: annotationSchemaInput.optional(),
  duplicate_file_rejection: z
    .enum(["enabled", "disabled"])
    .optional()
    .describe(
      "`enabled`: an upload whose file (`content`) the organization already has, in any queue and not deleted, is refused " +
        "with 409 `duplicate_document`. Default `disabled`.",
    ),
  extraction_engine: z
    .enum(EXTRACTION_ENGINES)
    .optional()
    .describe(
      "`builtin` (default): the extraction service reads every uploaded file and records its result. `external`: docex waits " +
        "for an outside engine to post `/documents/{id}/extraction`.",
    ),
});

export const renameBody = z.strictObject({ name });

/** A sender the inbox takes mail from: an address (`ap@supplier.cz`) or a whole domain (`@supplier.cz`). */
const allowedSender = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^([^\s@<>(),;:"]+)?@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, "must be an email address or @domain");

export const updateQueueBody = z.strictObject({
  name: name.optional(),
  annotation_schema: annotationSchemaInput
    .optional()
    .describe("Replaces the schema. Documents keep their annotations: removed keys stay readable, new keys start empty."),
  duplicate_file_rejection: z.enum(["enabled", "disabled"]).optional().describe("Applies to uploads from now on."),
  extraction_engine: z.enum(EXTRACTION_ENGINES).optional().describe("Applies to documents uploaded from now on."),
  document_lifetime_days: documentLifetimeDays
    .optional()
    .describe(
      "Documents uploaded more than this many days ago are purged (the lifetime sweep) with their files, annotations, changes " +
        "and what every service keeps of them; the audit log keeps their entries without values. null: kept (the default).",
    ),
  learn_from_validation: z
    .boolean()
    .optional()
    .describe("Whether people's confirmations in validation feed the supplier memory; applies to moves from now on."),
  inbox_allowed_senders: z
    .array(allowedSender)
    .max(200)
    .transform((senders) => [...new Set(senders)])
    .optional()
    .describe(
      "Owners and supervisors only. Sender addresses (`ap@supplier.cz`) and domains (`@supplier.cz`) the queue's inbox takes " +
        "mail from; mail from anyone else is refused with 550. `[]`: anyone (the default).",
    ),
});

export const uploadDocumentBody = z.strictObject({
  file_name: z.string().trim().min(1).max(255),
  content: z
    .base64()
    .min(1)
    .optional()
    .describe(
      "The file's bytes, base64-encoded (within the 1 MiB body); kept like an uploaded file. Their SHA-256 finds duplicate files. " +
        "Larger files go as multipart/form-data or a raw body.",
    ),
  annotations: annotationsInput.optional(),
  confidence: confidence.nullable().optional(),
});

/** The text fields of a multipart upload (and the raw body's name), parsed like the JSON form's. */
export const uploadFormFields = z.strictObject({
  file_name: z.string().trim().min(1).max(255),
  annotations: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "is not valid JSON" });
        return z.NEVER;
      }
    })
    .pipe(annotationsInput)
    .optional(),
  confidence: z.coerce.number().pipe(confidence).optional(),
});

export const extractionBody = z.strictObject({
  annotations: annotationsInput,
  confidence: confidence.nullable(),
});

export const annotationsPatchBody = z.strictObject({
  annotations: annotationsInput,
});

export const statusBody = z.strictObject({
  status: z.enum(DOCUMENT_STATUSES),
});

/** `?status=to_validate,postponed` or `?status=to_validate&status=postponed`; empty means the default. */
const statusFilter = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) =>
    (Array.isArray(value) ? value : [value ?? ""])
      .flatMap((part) => part.split(","))
      .map((part) => part.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(DOCUMENT_STATUSES)))
  .describe(`Statuses to list, comma-separated or repeated: ${DOCUMENT_STATUSES.join(", ")}. By default every status but deleted.`);

export const nameListQuery = z.object({
  q: z.preprocess(firstOf, z.string().trim().max(200).optional()).describe("Part of the name, case-insensitive"),
  ...firstValuePageQuery.shape,
});

/** What a list of workspaces or queues asks the domain for: the name filter and the page. */
export const nameListOf = (query: z.output<typeof nameListQuery>) => ({ q: query.q, page: query.page, pageSize: query.page_size });

const DAY_MS = 86_400_000;

/** An ISO date (`2026-03-01`, midnight UTC) or date-time with a zone; its instant and whether it named a whole day. */
export const instant = (meaning: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: "Must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone.",
    })
    .transform((text) => ({ at: new Date(text.length === 10 ? `${text}T00:00:00Z` : text), wholeDay: text.length === 10 }))
    .optional()
    .describe(`${meaning}: an ISO 8601 date (YYYY-MM-DD, UTC) or date-time with a time zone`);

const instantQuery = (meaning: string) => z.preprocess(firstOf, instant(meaning));

// Control characters cannot be typed into a search box; one of them separates the searched fields, and Postgres text
// holds no NUL.
const searchText = z.preprocess(
  firstOf,
  z
    .string()
    .transform((text) => text.replace(/\p{Cc}/gu, "").trim())
    .pipe(z.string().max(200))
    .optional()
    .describe("A part of the invoice number, the supplier's name or tax id, or the file name; case-insensitive"),
);

const refQuery = (what: string) =>
  z.preprocess(firstOf, idOrHumanized.optional().describe(`Only the documents of this ${what} (UUID or humanized id)`));

/**
 * The filters of GET /documents and GET /queues/{queue_id}/documents (API.md); they combine (AND). `created_to` with a
 * date includes that whole day (UTC); with a date-time, up to that instant.
 */
const documentListFilters = z.object({
  queue_id: refQuery("queue"),
  workspace_id: refQuery("workspace"),
  status: statusFilter,
  q: searchText,
  created_from: instantQuery("Documents created at or after"),
  created_to: instantQuery("Documents created up to (a date: that whole day)"),
  updated_since: instantQuery(
    "Documents changed (any write: status, annotations, messages, approvers) at or after; deleted documents included unless " +
      "`status` says otherwise; sorted by `updated_at` unless `sort` says otherwise",
  ),
  assigned_to_me: z.preprocess(
    firstOf,
    z
      .enum(["true", "false", "1", "0"])
      .transform((value) => value === "true" || value === "1")
      .optional()
      .describe("`true`: only documents whose `approvers` include the caller"),
  ),
  sort: z.preprocess(
    firstOf,
    z
      .enum(DOCUMENT_SORTS)
      .optional()
      .describe(
        "The order, `-` for descending; documents without a due date or total come last; ties by id. Default `-created_at` " +
          "(`updated_at` with `updated_since`)",
      ),
  ),
  ...firstValuePageQuery.shape,
});

export type DatedQuery = { created_from?: { at: Date } | undefined; created_to?: { at: Date } | undefined };
export const inOrder = (query: DatedQuery) =>
  !query.created_from || !query.created_to || query.created_from.at.getTime() <= query.created_to.at.getTime();
export const outOfOrder = { message: "created_from is after created_to", path: ["created_from"] };

export const documentListQuery = documentListFilters.refine(inOrder, outOfOrder);

/** The queue's list: the same filters, its queue being the path's (`queue_id` or `workspace_id` there is 400). */
export const queueDocumentListQuery = documentListFilters.omit({ queue_id: true, workspace_id: true }).refine(inOrder, outOfOrder);

/** The inclusive `created_to` as the exclusive bound the store takes. */
export function createdBeforeOf(createdTo: { at: Date; wholeDay: boolean } | undefined): Date | undefined {
  if (!createdTo) return undefined;
  return new Date(createdTo.at.getTime() + (createdTo.wholeDay ? DAY_MS : 1));
}
