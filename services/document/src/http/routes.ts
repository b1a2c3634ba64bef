import { pipeline } from "node:stream/promises";
import { DOCUMENT_STATUSES } from "@docex/events";
import { type AccessTokenVerifier, actorOf, authenticate } from "@docex/kit/auth";
import { ApiDescription, dataOf, pageBody, pageOf } from "@docex/kit/http";
import type { Request, Response, Router } from "express";
import { z } from "zod";
import type { DocumentListQuery, Documents } from "../domain/documents.js";
import type { Hierarchy } from "../domain/hierarchy.js";
import type { Quotas } from "../domain/quotas.js";
import type { ValidationLinks } from "../domain/validation-links.js";
import type { Exports } from "../export/exports.js";
import type { KeptFiles } from "../files/kept-files.js";
import { contentDispositionOf } from "../files/upload-body.js";
import type { UploadSlots } from "../files/upload-slots.js";
import type { PaymentBatches } from "../payments/payment-batches.js";
import { documentDto, documentSchema, queueDto, queueWithAnnotationSchemaSchema, workspaceDto, workspaceSchema } from "./dto.js";
import { exportRoutes } from "./export-routes.js";
import { fileOfBytes, matchesEtag } from "./file-http.js";
import { type StreamedUploadSettings, streamedUpload } from "./file-upload.js";
import { paymentRoutes } from "./payment-routes.js";
import { quotaRoutes } from "./quota-routes.js";
import {
  annotationsPatchBody,
  createdBeforeOf,
  createQueueBody,
  createWorkspaceBody,
  documentListQuery,
  extractionBody,
  nameListOf,
  nameListQuery,
  queueDocumentListQuery,
  renameBody,
  statusBody,
  updateQueueBody,
  uploadDocumentBody,
} from "./schemas.js";
import { validationLinkRoutes } from "./validation-link-routes.js";

const API = "/api/v2";

/** Every route asks membership for the caller's permission; it may be down (503) or slow (504). */
const MEMBERSHIP_PROBLEMS = [503, 504];

const QUEUE_ID = "The queue: UUID or humanized id";
const DOCUMENT_ID = "The document's UUID";

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

/** The list filters as the domain takes them. */
function listQueryOf(
  query: z.output<typeof queueDocumentListQuery> & Partial<Pick<z.output<typeof documentListQuery>, "queue_id" | "workspace_id">>,
): DocumentListQuery {
  const createdBefore = createdBeforeOf(query.created_to);
  return {
    ...(query.status.length ? { statuses: query.status } : {}),
    ...(query.queue_id ? { queueRef: query.queue_id } : {}),
    ...(query.workspace_id ? { workspaceRef: query.workspace_id } : {}),
    ...(query.q ? { q: query.q } : {}),
    ...(query.created_from ? { createdFrom: query.created_from.at } : {}),
    ...(createdBefore ? { createdBefore } : {}),
    ...(query.updated_since ? { updatedSince: query.updated_since.at } : {}),
    ...(query.assigned_to_me ? { assignedToMe: true } : {}),
    ...(query.sort ? { sort: query.sort } : {}),
    page: query.page,
    pageSize: query.page_size,
  };
}

const LIST_DESCRIPTION =
  "Filters combine: `status` (repeated or comma-separated), `q` (part of the invoice number, supplier name or tax id, or " +
  "file name, any case), `created_from` / `created_to` (dates include the whole day, UTC), `assigned_to_me`, `queue_id`, " +
  "`workspace_id` (GET /documents only; 404 when the caller may not read it). `updated_since` lists what changed at or after an instant, oldest " +
  "change first, deleted documents included: a client keeps up with changes by asking again from the last `updated_at` it saw " +
  "(minus a few seconds, see the document service's DECISIONS.md). Without `status`, deleted documents are left out " +
  "(except with `updated_since`). An approver sees only the documents assigned to them. An unknown parameter is 400.";

/** `{data: {<status>: count}}` of a queue. */
const documentCountsSchema = z.object({
  data: z.object(Object.fromEntries(DOCUMENT_STATUSES.map((status) => [status, z.number().int().min(0)]))),
});

function created(res: Response, location: string, data: unknown): void {
  res.status(201).location(`${API}${location}`).json({ data });
}

/** The operations of the document service and the router that serves them. */
export interface DocumentHttp {
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every route needs a verified token. */
export function documentRoutes(
  domain: {
    hierarchy: Hierarchy;
    documents: Documents;
    files: KeptFiles;
    slots: UploadSlots;
    quotas: Quotas;
    exports: Exports;
    payments: PaymentBatches;
    validationLinks: ValidationLinks;
  },
  verifier: AccessTokenVerifier,
  limits: StreamedUploadSettings,
): DocumentHttp {
  const { hierarchy, documents, files, slots, quotas, exports, payments, validationLinks } = domain;
  const signedIn = authenticate(verifier);

  const fileUpload = streamedUpload({ documents, files, slots, quotas }, limits);

  const api = new ApiDescription("document");
  const routes = (router: Router) => {
    api.route(
      router,
      {
        method: "post",
        path: `${API}/workspaces`,
        operationId: "createWorkspace",
        summary: "Create a workspace in an organization",
        tags: ["Workspaces"],
        body: createWorkspaceBody,
        responses: {
          201: {
            description: "The workspace",
            schema: dataOf(workspaceSchema),
            headers: { Location: "The new workspace: `/api/v2/workspaces/{id}`" },
          },
        },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        const workspace = await hierarchy.createWorkspace(actorOf(req), {
          organizationRef: body.organization_id,
          name: body.name,
          ...(body.humanized_id ? { humanizedId: body.humanized_id } : {}),
        });
        created(res, `/workspaces/${workspace.id}`, workspaceDto(workspace));
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/workspaces/{workspace_id}`,
        operationId: "getWorkspace",
        summary: "Read a workspace",
        tags: ["Workspaces"],
        params: { workspace_id: "The workspace: UUID or humanized id" },
        responses: { 200: { description: "The workspace", schema: dataOf(workspaceSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        res.json({ data: workspaceDto(await hierarchy.workspace(actorOf(req), param(req, "workspace_id"))) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/organizations/{organization_id}/workspaces`,
        operationId: "listWorkspaces",
        summary: "List the workspaces of an organization",
        description: "Oldest first. A member limited to some queues sees only the workspaces that hold one of them. `q` filters by name.",
        tags: ["Workspaces"],
        params: { organization_id: "The organization: UUID or humanized id" },
        query: nameListQuery,
        responses: { 200: { description: "A page of workspaces", schema: pageOf(workspaceSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ query }, req, res) => {
        const page = await hierarchy.listWorkspaces(actorOf(req), param(req, "organization_id"), nameListOf(query));
        res.json(pageBody(page.items, workspaceDto, page));
      },
    );

    api.route(
      router,
      {
        method: "patch",
        path: `${API}/workspaces/{workspace_id}`,
        operationId: "renameWorkspace",
        summary: "Rename a workspace",
        description: "Owners and supervisors. The humanized id stays. Publishes `configuration.changed`.",
        tags: ["Workspaces"],
        params: { workspace_id: "The workspace: UUID or humanized id" },
        body: renameBody,
        responses: { 200: { description: "The workspace", schema: dataOf(workspaceSchema) } },
        problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        res.json({ data: workspaceDto(await hierarchy.renameWorkspace(actorOf(req), param(req, "workspace_id"), body.name)) });
      },
    );

    api.route(
      router,
      {
        method: "delete",
        path: `${API}/workspaces/{workspace_id}`,
        operationId: "deleteWorkspace",
        summary: "Delete a workspace with its queues",
        description:
          "Owners and supervisors. 409 `not_empty` while a document of one of its queues is not `deleted`. Its queues go " +
          "as with DELETE /queues/{queue_id}; publishes `queue.deleted` for each and `workspace.deleted`, and every service " +
          "removes what it keeps of them (webhooks, validation links, rules, registers, learned values).",
        tags: ["Workspaces"],
        params: { workspace_id: "The workspace: UUID or humanized id" },
        responses: { 204: { description: "Deleted" } },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        await hierarchy.deleteWorkspace(actorOf(req), param(req, "workspace_id"));
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/workspaces/{workspace_id}/queues`,
        operationId: "listQueues",
        summary: "List the queues of a workspace",
        description: "Oldest first. A member limited to some queues sees only those. `q` filters by name.",
        tags: ["Queues"],
        params: { workspace_id: "The workspace: UUID or humanized id" },
        query: nameListQuery,
        responses: { 200: { description: "A page of queues", schema: pageOf(queueWithAnnotationSchemaSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ query }, req, res) => {
        const page = await hierarchy.listQueues(actorOf(req), param(req, "workspace_id"), nameListOf(query));
        res.json(pageBody(page.items, queueDto, page));
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/queues`,
        operationId: "createQueue",
        summary: "Create a queue in a workspace",
        description:
          "Without `annotation_schema` the queue gets the default schema. `duplicate_file_rejection` (default `disabled`) " +
          "makes uploads of a file the organization already has answer 409. Emits `queue_created`.",
        tags: ["Queues"],
        body: createQueueBody,
        responses: {
          201: {
            description: "The queue with its annotation schema and automation settings",
            schema: dataOf(queueWithAnnotationSchemaSchema),
            headers: { Location: "The new queue: `/api/v2/queues/{id}`" },
          },
        },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        const view = await hierarchy.createQueue(actorOf(req), {
          workspaceRef: body.workspace_id,
          name: body.name,
          ...(body.humanized_id ? { humanizedId: body.humanized_id } : {}),
          ...(body.annotation_schema ? { annotationSchema: body.annotation_schema } : {}),
          ...(body.duplicate_file_rejection ? { duplicateFileRejection: body.duplicate_file_rejection === "enabled" } : {}),
          ...(body.extraction_engine ? { extractionEngine: body.extraction_engine } : {}),
        });
        created(res, `/queues/${view.queue.id}`, queueDto(view));
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/queues/{queue_id}`,
        operationId: "getQueue",
        summary: "Read a queue with its annotation schema and automation settings",
        tags: ["Queues"],
        params: { queue_id: QUEUE_ID },
        responses: { 200: { description: "The queue", schema: dataOf(queueWithAnnotationSchemaSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        res.json({ data: queueDto(await hierarchy.queue(actorOf(req), param(req, "queue_id"))) });
      },
    );

    api.route(
      router,
      {
        method: "patch",
        path: `${API}/queues/{queue_id}`,
        operationId: "updateQueue",
        summary: "Change a queue's name, annotation schema or options",
        description:
          "Who manages the queue (owners, supervisors, admins of it). Fields not sent stay. A new annotation schema keeps " +
          "documents' annotations: keys it lacks stay readable on the documents that have them, new keys start empty. " +
          "The humanized id stays. `document_lifetime_days` (1 to 3650, null: kept) purges older documents (`documents.purged`). " +
          "Publishes `configuration.changed` with the fields that changed.",
        tags: ["Queues"],
        params: { queue_id: QUEUE_ID },
        body: updateQueueBody,
        responses: { 200: { description: "The queue", schema: dataOf(queueWithAnnotationSchemaSchema) } },
        problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        const view = await hierarchy.updateQueue(actorOf(req), param(req, "queue_id"), {
          ...(body.name ? { name: body.name } : {}),
          ...(body.annotation_schema ? { annotationSchema: body.annotation_schema } : {}),
          ...(body.duplicate_file_rejection ? { duplicateFileRejection: body.duplicate_file_rejection === "enabled" } : {}),
          ...(body.extraction_engine ? { extractionEngine: body.extraction_engine } : {}),
          ...(body.document_lifetime_days === undefined ? {} : { documentLifetimeDays: body.document_lifetime_days }),
          ...(body.inbox_allowed_senders === undefined ? {} : { inboxAllowedSenders: body.inbox_allowed_senders }),
          ...(body.learn_from_validation === undefined ? {} : { learnFromValidation: body.learn_from_validation }),
        });
        res.json({ data: queueDto(view) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/queues/{queue_id}/inbox-email`,
        operationId: "rotateQueueInboxEmail",
        summary: "Give the queue's inbox a new address",
        description:
          "Who manages the queue (owners, supervisors, admins of it). Replaces the random token of `inbox_email`: mail to the " +
          "old address is refused (550) from now on. Publishes `configuration.changed`.",
        tags: ["Queues"],
        params: { queue_id: QUEUE_ID },
        responses: { 200: { description: "The queue with its new `inbox_email`", schema: dataOf(queueWithAnnotationSchemaSchema) } },
        problems: [403, 404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        res.json({ data: queueDto(await hierarchy.rotateInbox(actorOf(req), param(req, "queue_id"))) });
      },
    );

    api.route(
      router,
      {
        method: "delete",
        path: `${API}/queues/{queue_id}`,
        operationId: "deleteQueue",
        summary: "Delete a queue with everything of it",
        description:
          "Who manages the queue. 409 `not_empty` while a document of it is not `deleted`; its deleted documents and their " +
          "files go with it. Publishes `queue.deleted`, and every service removes what it keeps of the queue (webhooks, " +
          "validation links, automation rules and settings, registers, learned values, user schemas).",
        tags: ["Queues"],
        params: { queue_id: QUEUE_ID },
        responses: { 204: { description: "Deleted" } },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        await hierarchy.deleteQueue(actorOf(req), param(req, "queue_id"));
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/queues/{queue_id}/documents`,
        operationId: "uploadDocument",
        summary: "Add a document to a queue",
        description:
          "The document starts in status `received`; emits `document.created`. The file comes as `content` (base64) in this " +
          "JSON body, as part `file` of a `multipart/form-data` body (fields `file_name`, `annotations` as JSON text, " +
          "`confidence`), or as a raw body (`application/pdf`, `image/png`, `image/jpeg`, `image/tiff`, `application/xml`, " +
          "`text/xml`; the name from `Content-Disposition` or `?file_name=`). Its type is judged by its bytes (PDF, PNG, " +
          "JPEG, TIFF, XML, or a zip named `.isdocx`), else 415; over `DOCUMENT_MAX_FILE_BYTES` (25 MiB) 413. The file is " +
          "kept (`GET /documents/{id}/file`); documents with the same file are listed in `duplicates`, and a queue with " +
          "`duplicate_file_rejection` `enabled` answers 409 `duplicate_document` (`duplicate_of`: the existing document's id, " +
          "null when the caller cannot read it). A multipart or raw upload past the uploads in flight allowed (per service " +
          "instance, and per organization in it) is 429 `too_many_uploads` with `Retry-After`, before its body is stored. The " +
          "organization's quotas (`GET /organizations/{id}/quotas`) answer 429 `quota_exceeded` (uploads per minute, documents " +
          "per month) or 413 `quota_exceeded` (stored bytes), naming the `quota`, its `limit` and `resets_at`.",
        tags: ["Documents"],
        params: { queue_id: QUEUE_ID },
        body: uploadDocumentBody,
        otherBodies: {
          "multipart/form-data": {
            type: "object",
            required: ["file"],
            properties: {
              file: { type: "string", format: "binary", description: "The file" },
              file_name: { type: "string", description: "Defaults to the part's file name, else `document.<extension>`" },
              annotations: { type: "string", description: "JSON text: an array of Annotation, as in the JSON form" },
              confidence: { type: "number", minimum: 0, maximum: 100 },
            },
          },
          ...Object.fromEntries(
            ["application/pdf", "image/png", "image/jpeg", "image/tiff", "application/xml", "text/xml"].map((type) => [
              type,
              { type: "string", format: "binary" },
            ]),
          ),
        },
        responses: {
          201: {
            description: "The document",
            schema: dataOf(documentSchema),
            headers: { Location: "The new document: `/api/v2/documents/{id}`" },
          },
        },
        problems: [403, 404, 409, 429, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      fileUpload,
      async ({ body }, req, res) => {
        const content = body.content === undefined ? undefined : Buffer.from(body.content, "base64");
        const document = await documents.upload(actorOf(req), param(req, "queue_id"), {
          fileName: body.file_name,
          file: content ? await fileOfBytes(content, body.file_name, limits.maxFileBytes) : null,
          annotations: body.annotations ?? [],
          confidence: body.confidence ?? null,
        });
        created(res, `/documents/${document.id}`, documentDto(document));
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/queues/{queue_id}/documents`,
        operationId: "listQueueDocuments",
        summary: "List a queue's documents",
        description: `Newest first unless \`sort\` says otherwise. ${LIST_DESCRIPTION}`,
        tags: ["Documents"],
        params: { queue_id: QUEUE_ID },
        query: queueDocumentListQuery,
        responses: { 200: { description: "A page of documents", schema: pageOf(documentSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ query }, req, res) => {
        const page = await documents.list(actorOf(req), param(req, "queue_id"), listQueryOf(query));
        res.json(pageBody(page.items, documentDto, page));
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/documents`,
        operationId: "listDocuments",
        summary: "List every document the caller may read, across queues and organizations",
        description: `The queues of every organization the caller belongs to, within their membership's \`queue_ids\`. Newest first unless \`sort\` says otherwise. ${LIST_DESCRIPTION}`,
        tags: ["Documents"],
        query: documentListQuery,
        responses: { 200: { description: "A page of documents", schema: pageOf(documentSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ query }, req, res) => {
        const page = await documents.listReadable(actorOf(req), listQueryOf(query));
        res.json(pageBody(page.items, documentDto, page));
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/queues/{queue_id}/document-counts`,
        operationId: "countQueueDocuments",
        summary: "Count a queue's documents in each status",
        description:
          "Every status is named, with 0 where there is none, `deleted` included. An approver counts the documents assigned to them.",
        tags: ["Documents"],
        params: { queue_id: QUEUE_ID },
        query: z.strictObject({}),
        responses: { 200: { description: "The number of documents in each status", schema: documentCountsSchema } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        res.json({ data: await documents.countByStatus(actorOf(req), param(req, "queue_id")) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/documents/{document_id}`,
        operationId: "getDocument",
        summary: "Read a document",
        tags: ["Documents"],
        params: { document_id: DOCUMENT_ID },
        responses: { 200: { description: "The document", schema: dataOf(documentSchema) } },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        res.json({ data: documentDto(await documents.get(actorOf(req), param(req, "document_id"))) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/documents/{document_id}/file`,
        operationId: "getDocumentFile",
        summary: "Download a document's original file",
        description:
          "The bytes exactly as uploaded, with their sniffed `Content-Type`, a `Content-Disposition` naming the file and an " +
          "`ETag` (the SHA-256); `If-None-Match` with it answers 304. 404 `file_not_found` when the document has no file " +
          "(none was uploaded, or it was purged after the document's deletion). Same access as reading the document.",
        tags: ["Documents"],
        params: { document_id: DOCUMENT_ID },
        responses: {
          200: {
            description: "The file's bytes",
            binary: [
              "application/pdf",
              "image/png",
              "image/jpeg",
              "image/tiff",
              "application/xml",
              "application/zip",
              "application/octet-stream",
            ],
            headers: {
              "Content-Type": "The file's media type, judged by its bytes",
              "Content-Disposition": "`attachment` with the file name",
              ETag: "The SHA-256 of the bytes, quoted",
              "Content-Security-Policy": "`sandbox`: the bytes never run as a page of this origin",
              "X-Content-Type-Options": "`nosniff`",
            },
          },
          304: { description: "`If-None-Match` names the file's ETag" },
        },
        problems: [404, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async (_input, req, res) => {
        const document = await documents.readable(actorOf(req), param(req, "document_id"));
        const file = await files.open(document);
        const etag = `"${document.fileSha256 ?? document.id}"`;
        res.setHeader("ETag", etag);
        res.setHeader("Cache-Control", "private, no-cache");
        // The bytes are the uploader's (an SVG or XHTML file is kept as application/xml): should a browser render them,
        // they run in a sandbox of their own origin, without scripts, never as a page of docex's.
        res.setHeader("Content-Security-Policy", "sandbox");
        res.setHeader("X-Content-Type-Options", "nosniff");
        if (matchesEtag(req.headers["if-none-match"], etag)) {
          file.content.destroy();
          res.status(304).end();
          return;
        }
        res.status(200);
        res.setHeader("Content-Type", file.contentType);
        res.setHeader("Content-Length", String(file.size));
        res.setHeader("Content-Disposition", contentDispositionOf(document.fileName));
        try {
          await pipeline(file.content, res);
        } catch (error) {
          if (!res.headersSent) throw error;
          res.destroy();
        }
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/documents/{document_id}/extraction`,
        operationId: "recordDocumentExtraction",
        summary: "Record the extraction engine's result for a document",
        description:
          "Sent by the extraction engine with the token of a user who may edit the queue. Moves the document from `received` or " +
          "`extracting` to `to_validate`; learning suggestions, automation and `initial_document_validation` follow.",
        tags: ["Documents"],
        params: { document_id: DOCUMENT_ID },
        body: extractionBody,
        responses: { 200: { description: "The document after the extraction", schema: dataOf(documentSchema) } },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        const document = await documents.recordExtraction(actorOf(req), param(req, "document_id"), body);
        res.json({ data: documentDto(document) });
      },
    );

    api.route(
      router,
      {
        method: "patch",
        path: `${API}/documents/{document_id}/annotations`,
        operationId: "editDocumentAnnotations",
        summary: "Edit a document's annotations",
        description:
          "The annotations sent replace those of their keys; other keys stay. `document_validation` runs within its budget and " +
          "its answer is applied before the document is returned.",
        tags: ["Documents"],
        params: { document_id: DOCUMENT_ID },
        body: annotationsPatchBody,
        responses: { 200: { description: "The document after the edit and its validation", schema: dataOf(documentSchema) } },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        const edited = await documents.editAnnotations(actorOf(req), param(req, "document_id"), body.annotations, req.receivedAt);
        res.json({ data: documentDto(edited) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/documents/{document_id}/status`,
        operationId: "changeDocumentStatus",
        summary: "Move a document to another status",
        description:
          "An illegal move, or a move towards export while an `error` message exists, is 409 naming what is allowed or what blocks. " +
          "Emits `document_status_changed`.",
        tags: ["Documents"],
        params: { document_id: DOCUMENT_ID },
        body: statusBody,
        responses: { 200: { description: "The document in its new status", schema: dataOf(documentSchema) } },
        problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        res.json({ data: documentDto(await documents.changeStatus(actorOf(req), param(req, "document_id"), body.status)) });
      },
    );

    for (const decision of ["approved", "rejected"] as const) {
      const verb = decision === "approved" ? "approve" : "reject";
      api.route(
        router,
        {
          method: "post",
          path: `${API}/documents/{document_id}/${verb}`,
          operationId: `${verb}Document`,
          summary: decision === "approved" ? "Approve the document's current approval stage" : "Reject the document in approval",
          description:
            "By an approver of the current stage of the document's approval route, once per person and stage (409 " +
            "`already_decided`); others answer 403 `not_an_approver`, a document not in approval 409 `not_in_approval`. " +
            (decision === "approved"
              ? "The stage completes at its `min_approvals` and the next stage's approvers are assigned; completing the last " +
                "stage moves the document to `ready_to_export` (409 while an `error` message blocks it). Emits `document.approved`."
              : "The document moves to `rejected`. Emits `document_status_changed`."),
          tags: ["Documents"],
          params: { document_id: DOCUMENT_ID },
          responses: { 200: { description: "The document after the decision", schema: dataOf(documentSchema) } },
          problems: [403, 404, 409, ...MEMBERSHIP_PROBLEMS],
        },
        signedIn,
        async (_input, req, res) => {
          res.json({ data: documentDto(await documents.decide(actorOf(req), param(req, "document_id"), decision)) });
        },
      );
    }
    quotaRoutes(api, router, signedIn, quotas);
    exportRoutes(api, router, signedIn, exports);
    paymentRoutes(api, router, signedIn, payments);
    validationLinkRoutes(api, router, signedIn, validationLinks);
  };
  return { api, routes };
}
