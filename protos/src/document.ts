import type { GrpcClientOptions } from "@docex/kit";
import type { DocumentDefinition } from "./generated/docex/document/v1/Document.js";
import { createPromiseClient, type Handlers, loadService, type PromiseClient } from "./service-descriptor.js";

export type { ApplyDocumentChangesRequest } from "./generated/docex/document/v1/ApplyDocumentChangesRequest.js";
export type { ApplyDocumentChangesResponse } from "./generated/docex/document/v1/ApplyDocumentChangesResponse.js";
export type { DocumentRecord } from "./generated/docex/document/v1/DocumentRecord.js";
export type { GetDocumentRequest } from "./generated/docex/document/v1/GetDocumentRequest.js";
export type { GetDocumentResponse } from "./generated/docex/document/v1/GetDocumentResponse.js";
export type { GetQueueRequest } from "./generated/docex/document/v1/GetQueueRequest.js";
export type { GetQueueResponse } from "./generated/docex/document/v1/GetQueueResponse.js";
export type { Queue } from "./generated/docex/document/v1/Queue.js";
export type { ResolveEntityRequest } from "./generated/docex/document/v1/ResolveEntityRequest.js";
export type { ResolveEntityResponse } from "./generated/docex/document/v1/ResolveEntityResponse.js";

export const documentService = loadService<DocumentDefinition>("document.proto", "docex.document.v1.Document");

export type DocumentHandlers = Handlers<DocumentDefinition>;
export type DocumentClient = PromiseClient<DocumentDefinition>;

export function createDocumentClient(address: string, options?: GrpcClientOptions): DocumentClient {
  return createPromiseClient(documentService, address, options);
}
