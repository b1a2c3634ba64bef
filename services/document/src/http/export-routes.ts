import { actorOf } from "@docex/kit/auth";
import { type ApiDescription, dataOf } from "@docex/kit/http";
import type { Request, RequestHandler, Response, Router } from "express";
import { z } from "zod";
import type { ExportConfig, ExportRun } from "../export/export-store.js";
import { type Exports, MAX_RUN_DOCUMENTS, RUN_FILTER_STATUSES } from "../export/exports.js";
import { EXPORT_FORMATS } from "../export/formats/index.js";
import { contentDispositionOf } from "../files/upload-body.js";
import { documentDto, documentSchema } from "./dto.js";
import { createdBeforeOf, inOrder, instant, outOfOrder } from "./schemas.js";

const API = "/api/v2";
const MEMBERSHIP_PROBLEMS = [503, 504];
const QUEUE_ID = "The queue: UUID or humanized id";
const EXPORT_ID = "The export's UUID";
const RUN_ID = "The export run's UUID";

// Each answer's schema sits above the mapper that produces it, as in dto.ts.

export const exportSchema = z.object({
  id: z.guid(),
  queue_id: z.guid(),
  name: z.string(),
  format: z.enum(EXPORT_FORMATS),
  trigger: z.enum(["on_ready", "manual"]),
  options: z.record(z.string(), z.unknown()).describe("The format's options, defaults filled in (CSV: columns, delimiter)"),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export function exportDto(config: ExportConfig): z.output<typeof exportSchema> {
  return {
    id: config.id,
    queue_id: config.queueId,
    name: config.name,
    format: config.format,
    trigger: config.trigger,
    options: config.options,
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
  };
}

export const exportRunSchema = z.object({
  id: z.guid(),
  export_id: z.guid(),
  format: z.enum(EXPORT_FORMATS),
  status: z.enum(["running", "done", "failed"]),
  document_ids: z.array(z.guid()),
  error: z.string().nullable().describe("Why the run failed (which document lacks what); null otherwise"),
  created_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  file_purged_at: z.iso
    .datetime()
    .nullable()
    .describe("When the file was removed because a document in it was purged (its queue's document lifetime); null while kept"),
});

export function exportRunDto(run: ExportRun): z.output<typeof exportRunSchema> {
  return {
    id: run.id,
    export_id: run.exportId,
    format: run.format,
    status: run.status,
    document_ids: run.documentIds,
    error: run.error,
    created_at: run.createdAt.toISOString(),
    finished_at: run.finishedAt ? run.finishedAt.toISOString() : null,
    file_purged_at: run.filePurgedAt ? run.filePurgedAt.toISOString() : null,
  };
}

const exportName = z.string().trim().min(1).max(200);
const exportOptions = z
  .record(z.string(), z.unknown())
  .describe('Per format: CSV `{columns?: [key], delimiter?: "," | ";" | "\\t" | "|"}`; the others take none');

export const createExportBody = z.strictObject({
  name: exportName,
  format: z.enum(EXPORT_FORMATS),
  trigger: z.enum(["on_ready", "manual"]),
  options: exportOptions.optional(),
});

export const updateExportBody = z
  .strictObject({
    name: exportName.optional(),
    format: z.enum(EXPORT_FORMATS).optional(),
    trigger: z.enum(["on_ready", "manual"]).optional(),
    options: exportOptions.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, "name at least one field to change");

export const exportRunFilter = z
  .strictObject({
    status: z
      .union([z.enum(RUN_FILTER_STATUSES), z.array(z.enum(RUN_FILTER_STATUSES)).min(1)])
      .optional()
      .describe("One status or several; `ready_to_export` by default"),
    created_from: instant("Documents uploaded at or after"),
    created_to: instant("Documents uploaded up to (a date: that whole day)"),
  })
  .refine(inOrder, outOfOrder);

export const exportRunBody = z
  .strictObject({
    document_ids: z
      .array(z.guid())
      .min(1)
      .max(MAX_RUN_DOCUMENTS)
      .optional()
      .describe(`Documents of the export's queue, at most ${MAX_RUN_DOCUMENTS}`),
    filter: exportRunFilter
      .optional()
      .describe(
        `Instead of document_ids: the queue's documents matching it, oldest first, at most ${MAX_RUN_DOCUMENTS} (run again for ` +
          "the rest: exported documents leave `ready_to_export`)",
      ),
  })
  .refine((body) => (body.document_ids === undefined) !== (body.filter === undefined), {
    message: "send either document_ids or filter",
    path: ["document_ids"],
  });

export const exportResultBody = z.strictObject({
  status: z.enum(["exported", "export_failed"]),
  external_id: z.string().trim().min(1).max(200).optional().describe("The accounting system's id of the document"),
  message: z.string().trim().min(1).max(2000).optional().describe("Why the export failed; kept as an `error` message"),
});

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

function created(res: Response, location: string, data: unknown): void {
  res.status(201).location(`${API}${location}`).json({ data });
}

/** Export configurations, runs and their files, and the outcome an integrator records (issue 38). */
export function exportRoutes(api: ApiDescription, router: Router, signedIn: RequestHandler, exports: Exports): void {
  api.route(
    router,
    {
      method: "post",
      path: `${API}/queues/{queue_id}/exports`,
      operationId: "createExport",
      summary: "Configure an export of a queue's documents",
      description:
        "Owners, supervisors and the queue's admins. `on_ready`: each document reaching `ready_to_export` moves to `exporting`, " +
        "its file is produced and it moves to `exported` (or `export_failed` with an `error` message saying why). `manual`: " +
        "runs with POST /exports/{export_id}/runs. Options are checked against the format (400 naming each bad one).",
      tags: ["Exports"],
      params: { queue_id: QUEUE_ID },
      body: createExportBody,
      responses: {
        201: { description: "The export", schema: dataOf(exportSchema), headers: { Location: "`/api/v2/exports/{id}`" } },
      },
      problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      const config = await exports.create(actorOf(req), param(req, "queue_id"), body);
      created(res, `/exports/${config.id}`, exportDto(config));
    },
  );

  api.route(
    router,
    {
      method: "get",
      path: `${API}/queues/{queue_id}/exports`,
      operationId: "listExports",
      summary: "List a queue's exports",
      description: "Whoever may read the queue; oldest first.",
      tags: ["Exports"],
      params: { queue_id: QUEUE_ID },
      query: z.strictObject({}),
      responses: { 200: { description: "The exports", schema: dataOf(z.array(exportSchema)) } },
      problems: [404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      res.json({ data: (await exports.list(actorOf(req), param(req, "queue_id"))).map(exportDto) });
    },
  );

  api.route(
    router,
    {
      method: "patch",
      path: `${API}/exports/{export_id}`,
      operationId: "updateExport",
      summary: "Change an export",
      description: "Owners, supervisors and the queue's admins. A new format without options takes that format's defaults.",
      tags: ["Exports"],
      params: { export_id: EXPORT_ID },
      body: updateExportBody,
      responses: { 200: { description: "The export", schema: dataOf(exportSchema) } },
      problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      res.json({ data: exportDto(await exports.update(actorOf(req), param(req, "export_id"), body)) });
    },
  );

  api.route(
    router,
    {
      method: "delete",
      path: `${API}/exports/{export_id}`,
      operationId: "deleteExport",
      summary: "Delete an export",
      description: "Owners, supervisors and the queue's admins. Its runs and their files stay readable.",
      tags: ["Exports"],
      params: { export_id: EXPORT_ID },
      responses: { 204: { description: "Deleted" } },
      problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      await exports.delete(actorOf(req), param(req, "export_id"));
      res.status(204).end();
    },
  );

  api.route(
    router,
    {
      method: "post",
      path: `${API}/exports/{export_id}/runs`,
      operationId: "runExport",
      summary: "Export documents now",
      description:
        "Who may edit the queue's documents. Documents in `ready_to_export` or `export_failed` move through `exporting` to " +
        "`exported`; others are exported as they are. A document that lacks what the format needs fails the run " +
        "(`status: failed`, `error` says which and what) and moves to `export_failed`. 400 for a document of another queue. " +
        `Instead of \`document_ids\`, a \`filter\` takes the queue's documents in its statuses (\`ready_to_export\` by default) ` +
        `uploaded within its dates, the oldest ${MAX_RUN_DOCUMENTS}; 400 \`no_documents\` when none matches.`,
      tags: ["Exports"],
      params: { export_id: EXPORT_ID },
      body: exportRunBody,
      responses: {
        201: { description: "The run, finished", schema: dataOf(exportRunSchema), headers: { Location: "`/api/v2/export-runs/{id}`" } },
      },
      problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      const { filter } = body;
      const selection = filter
        ? {
            filter: {
              statuses: filter.status === undefined ? undefined : Array.isArray(filter.status) ? filter.status : [filter.status],
              createdFrom: filter.created_from?.at,
              createdBefore: createdBeforeOf(filter.created_to),
            },
          }
        : { documentIds: body.document_ids ?? [] };
      const run = await exports.run(actorOf(req), param(req, "export_id"), selection);
      created(res, `/export-runs/${run.id}`, exportRunDto(run));
    },
  );

  api.route(
    router,
    {
      method: "get",
      path: `${API}/export-runs/{run_id}`,
      operationId: "getExportRun",
      summary: "Read an export run",
      description: "Whoever may read the queue.",
      tags: ["Exports"],
      params: { run_id: RUN_ID },
      responses: { 200: { description: "The run", schema: dataOf(exportRunSchema) } },
      problems: [404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      res.json({ data: exportRunDto(await exports.getRun(actorOf(req), param(req, "run_id"))) });
    },
  );

  api.route(
    router,
    {
      method: "get",
      path: `${API}/export-runs/{run_id}/file`,
      operationId: "getExportRunFile",
      summary: "Download an export run's file",
      description:
        "CSV and JSON: one file of every document. ISDOC, UBL, Pohoda and Money S3: the document's XML, or a ZIP of one " +
        "file per document when the run has several. 404 `export_file_not_found` for a failed run, `export_file_purged` once a " +
        "document in it was purged (its queue's document lifetime).",
      tags: ["Exports"],
      params: { run_id: RUN_ID },
      responses: {
        200: {
          description: "The file",
          binary: ["text/csv", "application/json", "application/xml", "application/zip"],
          headers: { "Content-Disposition": "`attachment` with the file name" },
        },
      },
      problems: [404, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async (_input, req, res) => {
      const file = await exports.runFile(actorOf(req), param(req, "run_id"));
      res.status(200);
      res.setHeader("Content-Type", file.contentType);
      res.setHeader("Content-Disposition", contentDispositionOf(file.name));
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.end(file.bytes);
    },
  );

  api.route(
    router,
    {
      method: "post",
      path: `${API}/documents/{document_id}/export-result`,
      operationId: "recordExportResult",
      summary: "Record the outcome of an export done outside docex",
      description:
        "Who may change the document's status. From `ready_to_export`, `exporting` or `export_failed` the document moves to " +
        "the outcome (through `exporting` where needed: an audit entry and `document_status_changed` for each move); " +
        "`external_id` shows on the Document; a failure's `message` becomes an `error` message. An outcome the document " +
        "already has records the id and message again. 409 from any other status.",
      tags: ["Documents"],
      params: { document_id: "The document's UUID" },
      body: exportResultBody,
      responses: { 200: { description: "The document", schema: dataOf(documentSchema) } },
      problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
    },
    signedIn,
    async ({ body }, req, res) => {
      const document = await exports.recordResult(actorOf(req), param(req, "document_id"), {
        status: body.status,
        externalId: body.external_id,
        message: body.message,
      });
      res.json({ data: documentDto(document) });
    },
  );
}
