// Written by generate-services.mjs from document.proto (npm run generate): do not edit.
import type { GrpcClientOptions } from "@docex/kit/grpc";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";
import type { DocumentDefinition } from "../docex/document/v1/Document.js";

export type { ApplyDocumentChangesRequest } from "../docex/document/v1/ApplyDocumentChangesRequest.js";
export type { ApplyDocumentChangesResponse } from "../docex/document/v1/ApplyDocumentChangesResponse.js";
export type { DocumentRecord } from "../docex/document/v1/DocumentRecord.js";
export type { FileChunk } from "../docex/document/v1/FileChunk.js";
export type { GetDocumentRequest } from "../docex/document/v1/GetDocumentRequest.js";
export type { GetDocumentResponse } from "../docex/document/v1/GetDocumentResponse.js";
export type { GetQueueRequest } from "../docex/document/v1/GetQueueRequest.js";
export type { GetQueueResponse } from "../docex/document/v1/GetQueueResponse.js";
export type { HasValidationLinkRequest } from "../docex/document/v1/HasValidationLinkRequest.js";
export type { HasValidationLinkResponse } from "../docex/document/v1/HasValidationLinkResponse.js";
export type { Queue } from "../docex/document/v1/Queue.js";
export type { ReadDocumentFileRequest } from "../docex/document/v1/ReadDocumentFileRequest.js";
export type { ReceiveEmailDocumentRequest } from "../docex/document/v1/ReceiveEmailDocumentRequest.js";
export type { ReceiveEmailDocumentResponse } from "../docex/document/v1/ReceiveEmailDocumentResponse.js";
export type { RecordExtractionRequest } from "../docex/document/v1/RecordExtractionRequest.js";
export type { RecordExtractionResponse } from "../docex/document/v1/RecordExtractionResponse.js";
export type { RecordValidationWebhookRequest } from "../docex/document/v1/RecordValidationWebhookRequest.js";
export type { RecordValidationWebhookResponse } from "../docex/document/v1/RecordValidationWebhookResponse.js";
export type { ResolveEntityRequest } from "../docex/document/v1/ResolveEntityRequest.js";
export type { ResolveEntityResponse } from "../docex/document/v1/ResolveEntityResponse.js";
export type { ResolveInboxRequest } from "../docex/document/v1/ResolveInboxRequest.js";
export type { ResolveInboxResponse } from "../docex/document/v1/ResolveInboxResponse.js";

export const documentService = loadService<DocumentDefinition>("document.proto", "docex.document.v1.Document");

/** The server-streaming methods of the Document service. */
export type DocumentStreams = "ReadDocumentFile";
export type DocumentHandlers = Handlers<DocumentDefinition, DocumentStreams>;
export type DocumentCallers = Callers<DocumentDefinition>;
export type DocumentClient = PromiseClient<DocumentDefinition, DocumentStreams>;

export function createDocumentClient(address: string, options: GrpcClientOptions): DocumentClient {
  return createPromiseClient<DocumentDefinition, DocumentStreams>(documentService, address, options);
}
