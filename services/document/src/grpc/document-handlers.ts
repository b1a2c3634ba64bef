import { DOCUMENT_STATUSES } from "@docex/events";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { parseInput } from "@docex/kit/validation";
import {
  annotationSchemaJson,
  annotationsJson,
  annotationsReaderJson,
  approvalRouteJson,
  automationBlockersJson,
  cellsJson,
  type DocumentCallers,
  type DocumentHandlers,
  type DocumentRecord,
  emailSourceJson,
  extractionJson,
  jsonText,
  messagesJson,
  optionsJson,
  type Queue as QueueMessage,
  type ApplyDocumentChangesRequest as RawChange,
  toJsonText,
} from "@docex/protos";
import { z } from "zod";
import type { DocumentChanges, ServiceChange } from "../domain/document-changes.js";
import type { Documents } from "../domain/documents.js";
import type { EmailDocuments } from "../domain/email-documents.js";
import type { EntityResolver } from "../domain/entity-resolution.js";
import { inboxAddressOf } from "../domain/hierarchy.js";
import { isUuid } from "../domain/humanized-id.js";
import { type Queue, SERVICE_SOURCES, type StoredDocument } from "../domain/records.js";
import { ENTITY_TYPES, VALIDATION_TYPES } from "../domain/validation.js";
import type { ValidationWebhooks } from "../domain/validation-webhooks.js";
import type { KeptFiles } from "../files/kept-files.js";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { ValidationLinkStore } from "../store/validation-link-store.js";

const lowerUuid = z.guid().transform((id) => id.toLowerCase());

const recordValidationWebhookRequest = z.object({
  webhook_id: lowerUuid,
  organization_id: lowerUuid,
  entity_type: z.enum(ENTITY_TYPES),
  entity_id: lowerUuid,
  type: z.enum(VALIDATION_TYPES),
  present: z.boolean(),
  changed_at: z.iso.datetime({ offset: true }),
  actor_user_id: z.union([z.literal(""), lowerUuid]),
});

const hasValidationLinkRequest = z.object({
  organization_id: lowerUuid,
  queue_id: lowerUuid,
  type: z.enum(VALIDATION_TYPES),
});

function queueMessage(queue: Queue, inboxDomain: string): QueueMessage {
  return {
    id: queue.id,
    humanized_id: queue.humanizedId,
    name: queue.name,
    workspace_id: queue.workspaceId,
    organization_id: queue.organizationId,
    annotation_schema_json: toJsonText(annotationSchemaJson, queue.annotationSchema),
    created_at: queue.createdAt.toISOString(),
    duplicate_file_rejection: queue.duplicateFileRejection,
    extraction_engine: queue.extractionEngine,
    document_lifetime_days: queue.documentLifetimeDays ?? 0,
    inbox_email: inboxAddressOf(queue, inboxDomain),
    inbox_allowed_senders: queue.inboxAllowedSenders,
    learn_from_validation: queue.learnFromValidation,
  };
}

/** The whole document as other contexts need it: every field (no user schema applies), with its version. */
export function documentRecord(document: StoredDocument): DocumentRecord {
  return {
    id: document.id,
    queue_id: document.queueId,
    workspace_id: document.workspaceId,
    organization_id: document.organizationId,
    file_name: document.fileName,
    status: document.status,
    annotations_json: toJsonText(annotationsReaderJson, document.annotations),
    messages_json: toJsonText(
      messagesJson,
      document.messages.map(({ key, message, severity }) => ({ key, message, severity })),
    ),
    options_json: toJsonText(optionsJson, document.options),
    approvers: document.approvers,
    ...(document.confidence === null ? {} : { confidence: document.confidence }),
    version: document.version,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
  };
}

const uuid = z.guid();

const recordExtractionRequest = z.object({
  organization_id: z.string(),
  document_id: z.string(),
  idempotency_key: z.string().max(200),
  extraction_json: jsonText(extractionJson, { annotations: [], confidence: null }),
  messages_json: jsonText(messagesJson, []),
  failed: z.boolean().optional(),
});

const applyChangesRequest = z.object({
  document_id: z.string(),
  expected_version: z.number().int().min(0),
  source: z.enum(SERVICE_SOURCES),
  annotations_json: jsonText(annotationsJson, []),
  messages_json: jsonText(messagesJson, []),
  options_json: jsonText(optionsJson, {}),
  status: z.enum(DOCUMENT_STATUSES).optional(),
  approvers: z.array(uuid).max(100),
  applied_rules: z.array(uuid).max(1_000),
  replace_messages: z.boolean(),
  idempotency_key: z.string().max(200),
  cells_json: jsonText(cellsJson, []),
  approval_route_json: jsonText(approvalRouteJson.nullable(), null),
  automation_blockers_json: jsonText(automationBlockersJson.nullable(), null),
});

function serviceChange(raw: RawChange): ServiceChange {
  const request = parseInput(applyChangesRequest, raw, "ApplyDocumentChanges request");
  return {
    documentId: request.document_id.toLowerCase(),
    expectedVersion: request.expected_version,
    source: request.source,
    annotations: request.annotations_json,
    cells: request.cells_json.map((cell) => ({ key: cell.key, rowIndex: cell.row_index, value: cell.value })),
    messages: request.messages_json,
    replaceMessages: request.replace_messages,
    options: request.options_json,
    ...(request.status ? { status: request.status } : {}),
    approvers: request.approvers.map((id) => id.toLowerCase()),
    ...(request.approval_route_json
      ? {
          approvalRoute: {
            stages: request.approval_route_json.stages.map((stage) => ({
              approverIds: [...new Set(stage.approver_ids.map((id) => id.toLowerCase()))],
              minApprovals: stage.min_approvals ?? 1,
            })),
            stage: request.approval_route_json.stage,
          },
        }
      : {}),
    appliedRules: request.applied_rules,
    ...(request.automation_blockers_json ? { automationBlockers: request.automation_blockers_json } : {}),
    ...(request.idempotency_key ? { idempotencyKey: request.idempotency_key } : {}),
  };
}

/** gRPC carries one message per status: a caller learns which fields were wrong from it. */
function withFieldDetails(error: unknown): unknown {
  if (!(error instanceof ValidationError) || error.errors.length === 0) return error;
  const details = error.errors.map((field) => `${field.path}: ${field.message}`).join("; ");
  return new ValidationError(`${error.message} ${details}`, error.errors, error.code);
}

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call document today: a new caller is added here.
 */
export const documentCallers: DocumentCallers = {
  // Every service that takes an entity reference from a request resolves it here.
  ResolveEntity: ["automation", "learning", "membership", "register", "webhook"],
  GetQueue: ["automation", "extraction", "learning"],
  // extraction: the pages API checks who may read the document.
  GetDocument: ["extraction", "learning", "webhook"],
  // automation (rules) and learning (relearned fields) write documents; nobody else may.
  ApplyDocumentChanges: ["automation", "learning"],
  // extraction: reads the uploaded file and hands its result back.
  ReadDocumentFile: ["extraction"],
  RecordExtraction: ["extraction"],
  // webhook: a validation webhook of the deprecated API was committed there; a new one beside a queue's link is refused.
  RecordValidationWebhook: ["webhook"],
  HasValidationLink: ["webhook"],
  // intake: mail to queues' inboxes.
  ResolveInbox: ["intake"],
  ReceiveEmailDocument: ["intake"],
};

const receiveEmailDocumentRequest = z.object({
  address: z.string().min(3).max(320),
  source_key: z.string().min(1).max(200),
  file_name: z.string().trim().min(1).max(255),
  content: z.instanceof(Buffer),
  source_json: jsonText(emailSourceJson, {}),
});

/** docex.document.v1.Document: what other contexts may ask of documents. Callers are services, trusted inside the cluster. */
export function documentHandlers(deps: {
  resolver: EntityResolver;
  hierarchy: HierarchyStore;
  documents: DocumentStore;
  changes: DocumentChanges;
  extractions: Pick<Documents, "recordEngineExtraction">;
  files: KeptFiles;
  validationWebhooks: Pick<ValidationWebhooks, "record">;
  links: Pick<ValidationLinkStore, "ofQueue">;
  email: EmailDocuments;
  inboxDomain: string;
}): DocumentHandlers {
  return {
    async ResolveInbox(request) {
      const queue = await deps.email.inbox(request.address);
      return { queue_id: queue.id, organization_id: queue.organizationId, allowed_senders: queue.inboxAllowedSenders };
    },
    async ReceiveEmailDocument(request) {
      try {
        const parsed = parseInput(receiveEmailDocumentRequest, request, "ReceiveEmailDocument request");
        const outcome = await deps.email.receive({
          address: parsed.address,
          sourceKey: parsed.source_key,
          fileName: parsed.file_name,
          content: parsed.content,
          source: parsed.source_json,
        });
        if ("refused" in outcome) return { document_id: "", existing: false, refused: outcome.refused, refusal_detail: outcome.detail };
        return { document_id: outcome.document.id, existing: outcome.existing, refused: "", refusal_detail: "" };
      } catch (error) {
        throw withFieldDetails(error);
      }
    },
    async RecordValidationWebhook(request, ctx) {
      const parsed = parseInput(recordValidationWebhookRequest, request, "RecordValidationWebhook request");
      await deps.validationWebhooks.record({
        webhookId: parsed.webhook_id,
        organizationId: parsed.organization_id,
        entityType: parsed.entity_type,
        entityId: parsed.entity_id,
        type: parsed.type,
        present: parsed.present,
        changedAt: new Date(parsed.changed_at),
        actorUserId: parsed.actor_user_id || null,
        ...(ctx.requestId ? { requestId: ctx.requestId } : {}),
      });
      return {};
    },
    async HasValidationLink(request) {
      const parsed = parseInput(hasValidationLinkRequest, request, "HasValidationLink request");
      const queue = await deps.hierarchy.findQueue({ id: parsed.queue_id });
      if (queue?.organizationId !== parsed.organization_id) {
        throw new NotFoundError(`Queue ${parsed.queue_id} does not exist.`, "queue_not_found");
      }
      return { exists: (await deps.links.ofQueue(queue.id)).some((link) => link.type === parsed.type) };
    },
    async ResolveEntity(request) {
      const entity = await deps.resolver.resolve(request.entity_type, request.id_or_humanized, request.organization_id);
      return {
        entity_type: entity.entityType,
        id: entity.id,
        humanized_id: entity.humanizedId,
        organization_id: entity.organizationId,
        workspace_id: entity.workspaceId,
        queue_id: entity.queueId,
        document_id: entity.documentId,
      };
    },
    async GetQueue(request) {
      const queue = isUuid(request.queue_id) ? await deps.hierarchy.findQueue({ id: request.queue_id.toLowerCase() }) : undefined;
      if (!queue) throw new NotFoundError(`Queue ${request.queue_id} does not exist.`, "queue_not_found");
      return { queue: queueMessage(queue, deps.inboxDomain) };
    },
    async GetDocument(request) {
      const document = isUuid(request.document_id) ? await deps.documents.find(request.document_id.toLowerCase()) : undefined;
      if (!document) throw new NotFoundError(`Document ${request.document_id} does not exist.`, "document_not_found");
      return { document: documentRecord(document) };
    },
    async ApplyDocumentChanges(request, ctx) {
      try {
        const change = serviceChange(request);
        if (!isUuid(change.documentId)) throw new NotFoundError(`Document ${request.document_id} does not exist.`, "document_not_found");
        const outcome = await deps.changes.apply(change, ctx.requestId);
        return { applied: outcome.applied, reason: outcome.reason, document: documentRecord(outcome.document) };
      } catch (error) {
        throw withFieldDetails(error);
      }
    },
    async *ReadDocumentFile(request, ctx) {
      const document = isUuid(request.document_id) ? await deps.documents.find(request.document_id.toLowerCase()) : undefined;
      if (!document || document.organizationId !== request.organization_id.toLowerCase()) {
        throw new NotFoundError(`Document ${request.document_id} does not exist.`, "document_not_found");
      }
      const file = await deps.files.open(document);
      let first = true;
      for await (const data of inChunks(file.content, FILE_CHUNK_BYTES)) {
        if (ctx.signal?.aborted) break;
        yield first
          ? { data, content_type: file.contentType, file_name: document.fileName, size: String(file.size) }
          : { data, content_type: "", file_name: "", size: "0" };
        first = false;
      }
      if (first) yield { data: Buffer.alloc(0), content_type: file.contentType, file_name: document.fileName, size: String(file.size) };
    },
    async RecordExtraction(request, ctx) {
      try {
        const parsed = parseInput(recordExtractionRequest, request, "RecordExtraction request");
        return await deps.extractions.recordEngineExtraction(
          parsed.organization_id,
          parsed.document_id,
          {
            annotations: parsed.extraction_json.annotations,
            confidence: parsed.extraction_json.confidence,
            messages: parsed.messages_json,
            idempotencyKey: parsed.idempotency_key,
            failed: parsed.failed === true,
          },
          ctx.requestId,
        );
      } catch (error) {
        throw withFieldDetails(error);
      }
    },
  };
}

/** One gRPC message of a file: well under the 4 MiB default message limit. */
const FILE_CHUNK_BYTES = 256 * 1024;

/** Re-cuts a byte stream into pieces of at most `size` bytes. */
async function* inChunks(content: AsyncIterable<Buffer | Uint8Array>, size: number): AsyncGenerator<Buffer> {
  for await (const piece of content) {
    const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
    for (let offset = 0; offset < buffer.length; offset += size) yield buffer.subarray(offset, offset + size);
  }
}
