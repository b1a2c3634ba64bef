import { annotationSchemaInput } from "@docex/annotations";
import { DOCUMENT_STATUSES } from "@docex/events";
import { humanizedIdInput } from "@docex/kit";
import { z } from "zod";
import { annotationsInput } from "../domain/annotations.js";
import { EXTRACTION_ENGINES } from "../domain/records.js";

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
  document_lifetime_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .nullable()
    .optional()
    .describe(
      "Documents uploaded more than this many days ago are purged (the lifetime sweep) with their files, annotations, changes " +
        "and what every service keeps of them; the audit log keeps their entries without values. null: kept (the default).",
    ),
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

const firstOf = (value: unknown) => (Array.isArray(value) ? value[0] : value);

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

const pageQuery = z.preprocess(firstOf, z.coerce.number().int().min(1).max(1_000_000).default(1));
const pageSizeQuery = z.preprocess(firstOf, z.coerce.number().int().min(1).max(100).default(20));

export const nameListQuery = z.object({
  q: z.preprocess(firstOf, z.string().trim().max(200).optional()).describe("Part of the name, case-insensitive"),
  page: pageQuery,
  page_size: pageSizeQuery,
});

export const documentListQuery = z.object({
  status: statusFilter,
  page: pageQuery,
  page_size: pageSizeQuery,
});
