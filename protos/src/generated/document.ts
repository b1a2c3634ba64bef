import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ApplyDocumentChangesRequestInput as _docex_document_v1_ApplyDocumentChangesRequestInput, ApplyDocumentChangesRequest as _docex_document_v1_ApplyDocumentChangesRequest } from './docex/document/v1/ApplyDocumentChangesRequest.js';
import type { ApplyDocumentChangesResponseInput as _docex_document_v1_ApplyDocumentChangesResponseInput, ApplyDocumentChangesResponse as _docex_document_v1_ApplyDocumentChangesResponse } from './docex/document/v1/ApplyDocumentChangesResponse.js';
import type { DocumentClient as _docex_document_v1_DocumentClient, DocumentDefinition as _docex_document_v1_DocumentDefinition } from './docex/document/v1/Document.js';
import type { DocumentRecordInput as _docex_document_v1_DocumentRecordInput, DocumentRecord as _docex_document_v1_DocumentRecord } from './docex/document/v1/DocumentRecord.js';
import type { FileChunkInput as _docex_document_v1_FileChunkInput, FileChunk as _docex_document_v1_FileChunk } from './docex/document/v1/FileChunk.js';
import type { GetDocumentRequestInput as _docex_document_v1_GetDocumentRequestInput, GetDocumentRequest as _docex_document_v1_GetDocumentRequest } from './docex/document/v1/GetDocumentRequest.js';
import type { GetDocumentResponseInput as _docex_document_v1_GetDocumentResponseInput, GetDocumentResponse as _docex_document_v1_GetDocumentResponse } from './docex/document/v1/GetDocumentResponse.js';
import type { GetQueueRequestInput as _docex_document_v1_GetQueueRequestInput, GetQueueRequest as _docex_document_v1_GetQueueRequest } from './docex/document/v1/GetQueueRequest.js';
import type { GetQueueResponseInput as _docex_document_v1_GetQueueResponseInput, GetQueueResponse as _docex_document_v1_GetQueueResponse } from './docex/document/v1/GetQueueResponse.js';
import type { HasValidationLinkRequestInput as _docex_document_v1_HasValidationLinkRequestInput, HasValidationLinkRequest as _docex_document_v1_HasValidationLinkRequest } from './docex/document/v1/HasValidationLinkRequest.js';
import type { HasValidationLinkResponseInput as _docex_document_v1_HasValidationLinkResponseInput, HasValidationLinkResponse as _docex_document_v1_HasValidationLinkResponse } from './docex/document/v1/HasValidationLinkResponse.js';
import type { QueueInput as _docex_document_v1_QueueInput, Queue as _docex_document_v1_Queue } from './docex/document/v1/Queue.js';
import type { ReadDocumentFileRequestInput as _docex_document_v1_ReadDocumentFileRequestInput, ReadDocumentFileRequest as _docex_document_v1_ReadDocumentFileRequest } from './docex/document/v1/ReadDocumentFileRequest.js';
import type { ReceiveEmailDocumentRequestInput as _docex_document_v1_ReceiveEmailDocumentRequestInput, ReceiveEmailDocumentRequest as _docex_document_v1_ReceiveEmailDocumentRequest } from './docex/document/v1/ReceiveEmailDocumentRequest.js';
import type { ReceiveEmailDocumentResponseInput as _docex_document_v1_ReceiveEmailDocumentResponseInput, ReceiveEmailDocumentResponse as _docex_document_v1_ReceiveEmailDocumentResponse } from './docex/document/v1/ReceiveEmailDocumentResponse.js';
import type { RecordExtractionRequestInput as _docex_document_v1_RecordExtractionRequestInput, RecordExtractionRequest as _docex_document_v1_RecordExtractionRequest } from './docex/document/v1/RecordExtractionRequest.js';
import type { RecordExtractionResponseInput as _docex_document_v1_RecordExtractionResponseInput, RecordExtractionResponse as _docex_document_v1_RecordExtractionResponse } from './docex/document/v1/RecordExtractionResponse.js';
import type { RecordValidationWebhookRequestInput as _docex_document_v1_RecordValidationWebhookRequestInput, RecordValidationWebhookRequest as _docex_document_v1_RecordValidationWebhookRequest } from './docex/document/v1/RecordValidationWebhookRequest.js';
import type { RecordValidationWebhookResponseInput as _docex_document_v1_RecordValidationWebhookResponseInput, RecordValidationWebhookResponse as _docex_document_v1_RecordValidationWebhookResponse } from './docex/document/v1/RecordValidationWebhookResponse.js';
import type { ResolveEntityRequestInput as _docex_document_v1_ResolveEntityRequestInput, ResolveEntityRequest as _docex_document_v1_ResolveEntityRequest } from './docex/document/v1/ResolveEntityRequest.js';
import type { ResolveEntityResponseInput as _docex_document_v1_ResolveEntityResponseInput, ResolveEntityResponse as _docex_document_v1_ResolveEntityResponse } from './docex/document/v1/ResolveEntityResponse.js';
import type { ResolveInboxRequestInput as _docex_document_v1_ResolveInboxRequestInput, ResolveInboxRequest as _docex_document_v1_ResolveInboxRequest } from './docex/document/v1/ResolveInboxRequest.js';
import type { ResolveInboxResponseInput as _docex_document_v1_ResolveInboxResponseInput, ResolveInboxResponse as _docex_document_v1_ResolveInboxResponse } from './docex/document/v1/ResolveInboxResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    document: {
      v1: {
        ApplyDocumentChangesRequest: MessageTypeDefinition<_docex_document_v1_ApplyDocumentChangesRequestInput, _docex_document_v1_ApplyDocumentChangesRequest>
        ApplyDocumentChangesResponse: MessageTypeDefinition<_docex_document_v1_ApplyDocumentChangesResponseInput, _docex_document_v1_ApplyDocumentChangesResponse>
        /**
         * Documents: workspaces, queues, documents, their annotations, messages and status.
         */
        Document: SubtypeConstructor<typeof grpc.Client, _docex_document_v1_DocumentClient> & { service: _docex_document_v1_DocumentDefinition }
        DocumentRecord: MessageTypeDefinition<_docex_document_v1_DocumentRecordInput, _docex_document_v1_DocumentRecord>
        FileChunk: MessageTypeDefinition<_docex_document_v1_FileChunkInput, _docex_document_v1_FileChunk>
        GetDocumentRequest: MessageTypeDefinition<_docex_document_v1_GetDocumentRequestInput, _docex_document_v1_GetDocumentRequest>
        GetDocumentResponse: MessageTypeDefinition<_docex_document_v1_GetDocumentResponseInput, _docex_document_v1_GetDocumentResponse>
        GetQueueRequest: MessageTypeDefinition<_docex_document_v1_GetQueueRequestInput, _docex_document_v1_GetQueueRequest>
        GetQueueResponse: MessageTypeDefinition<_docex_document_v1_GetQueueResponseInput, _docex_document_v1_GetQueueResponse>
        HasValidationLinkRequest: MessageTypeDefinition<_docex_document_v1_HasValidationLinkRequestInput, _docex_document_v1_HasValidationLinkRequest>
        HasValidationLinkResponse: MessageTypeDefinition<_docex_document_v1_HasValidationLinkResponseInput, _docex_document_v1_HasValidationLinkResponse>
        Queue: MessageTypeDefinition<_docex_document_v1_QueueInput, _docex_document_v1_Queue>
        ReadDocumentFileRequest: MessageTypeDefinition<_docex_document_v1_ReadDocumentFileRequestInput, _docex_document_v1_ReadDocumentFileRequest>
        ReceiveEmailDocumentRequest: MessageTypeDefinition<_docex_document_v1_ReceiveEmailDocumentRequestInput, _docex_document_v1_ReceiveEmailDocumentRequest>
        ReceiveEmailDocumentResponse: MessageTypeDefinition<_docex_document_v1_ReceiveEmailDocumentResponseInput, _docex_document_v1_ReceiveEmailDocumentResponse>
        RecordExtractionRequest: MessageTypeDefinition<_docex_document_v1_RecordExtractionRequestInput, _docex_document_v1_RecordExtractionRequest>
        RecordExtractionResponse: MessageTypeDefinition<_docex_document_v1_RecordExtractionResponseInput, _docex_document_v1_RecordExtractionResponse>
        RecordValidationWebhookRequest: MessageTypeDefinition<_docex_document_v1_RecordValidationWebhookRequestInput, _docex_document_v1_RecordValidationWebhookRequest>
        RecordValidationWebhookResponse: MessageTypeDefinition<_docex_document_v1_RecordValidationWebhookResponseInput, _docex_document_v1_RecordValidationWebhookResponse>
        ResolveEntityRequest: MessageTypeDefinition<_docex_document_v1_ResolveEntityRequestInput, _docex_document_v1_ResolveEntityRequest>
        ResolveEntityResponse: MessageTypeDefinition<_docex_document_v1_ResolveEntityResponseInput, _docex_document_v1_ResolveEntityResponse>
        ResolveInboxRequest: MessageTypeDefinition<_docex_document_v1_ResolveInboxRequestInput, _docex_document_v1_ResolveInboxRequest>
        ResolveInboxResponse: MessageTypeDefinition<_docex_document_v1_ResolveInboxResponseInput, _docex_document_v1_ResolveInboxResponse>
      }
    }
  }
}

