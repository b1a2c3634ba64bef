import type { GrpcClientOptions } from "@docex/kit/grpc";
import type { ApplyDocumentChangesRequest } from "./generated/docex/document/v1/ApplyDocumentChangesRequest.js";
import type { DocumentDefinition } from "./generated/docex/document/v1/Document.js";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "./service-descriptor.js";

export type { ApplyDocumentChangesResponse } from "./generated/docex/document/v1/ApplyDocumentChangesResponse.js";
export type { DocumentRecord } from "./generated/docex/document/v1/DocumentRecord.js";
export type { FileChunk } from "./generated/docex/document/v1/FileChunk.js";
export type { GetDocumentRequest } from "./generated/docex/document/v1/GetDocumentRequest.js";
export type { GetDocumentResponse } from "./generated/docex/document/v1/GetDocumentResponse.js";
export type { GetQueueRequest } from "./generated/docex/document/v1/GetQueueRequest.js";
export type { GetQueueResponse } from "./generated/docex/document/v1/GetQueueResponse.js";
export type { HasValidationLinkRequest } from "./generated/docex/document/v1/HasValidationLinkRequest.js";
export type { Queue } from "./generated/docex/document/v1/Queue.js";
export type { ReadDocumentFileRequest } from "./generated/docex/document/v1/ReadDocumentFileRequest.js";
export type { ReceiveEmailDocumentRequest } from "./generated/docex/document/v1/ReceiveEmailDocumentRequest.js";
export type { ReceiveEmailDocumentResponse } from "./generated/docex/document/v1/ReceiveEmailDocumentResponse.js";
export type { RecordExtractionRequest } from "./generated/docex/document/v1/RecordExtractionRequest.js";
export type { RecordExtractionResponse } from "./generated/docex/document/v1/RecordExtractionResponse.js";
export type { RecordValidationWebhookRequest } from "./generated/docex/document/v1/RecordValidationWebhookRequest.js";
export type { ResolveEntityRequest } from "./generated/docex/document/v1/ResolveEntityRequest.js";
export type { ResolveEntityResponse } from "./generated/docex/document/v1/ResolveEntityResponse.js";
export type { ResolveInboxRequest } from "./generated/docex/document/v1/ResolveInboxRequest.js";
export type { ResolveInboxResponse } from "./generated/docex/document/v1/ResolveInboxResponse.js";
export type { ApplyDocumentChangesRequest };

export const documentService = loadService<DocumentDefinition>("document.proto", "docex.document.v1.Document");

/** The server-streaming methods of the Document service. */
export type DocumentStreams = "ReadDocumentFile";
export type DocumentHandlers = Handlers<DocumentDefinition, DocumentStreams>;
export type DocumentCallers = Callers<DocumentDefinition>;
/** readDocumentFile answers an async iterable of FileChunk (the first one carries content_type, file_name, size). */
export type DocumentClient = PromiseClient<DocumentDefinition, DocumentStreams>;

export function createDocumentClient(address: string, options: GrpcClientOptions): DocumentClient {
  return createPromiseClient<DocumentDefinition, DocumentStreams>(documentService, address, options);
}

/** What every ApplyDocumentChanges request names: the document, the version it is based on, who asks, and its key. */
type ChangeHeader = Pick<ApplyDocumentChangesRequest, "document_id" | "expected_version" | "source" | "idempotency_key">;

/** An ApplyDocumentChanges request that changes only what `change` names; every other field changes nothing. */
export function documentChangeRequest(change: ChangeHeader & Partial<ApplyDocumentChangesRequest>): ApplyDocumentChangesRequest {
  return {
    annotations_json: "",
    messages_json: "",
    options_json: "",
    approvers: [],
    applied_rules: [],
    replace_messages: false,
    cells_json: "",
    approval_route_json: "",
    automation_blockers_json: "",
    ...change,
  };
}
