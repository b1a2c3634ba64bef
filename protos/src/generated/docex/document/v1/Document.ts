// Original file: document.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ApplyDocumentChangesRequestInput as _docex_document_v1_ApplyDocumentChangesRequestInput, ApplyDocumentChangesRequest as _docex_document_v1_ApplyDocumentChangesRequest } from '../../../docex/document/v1/ApplyDocumentChangesRequest.js';
import type { ApplyDocumentChangesResponseInput as _docex_document_v1_ApplyDocumentChangesResponseInput, ApplyDocumentChangesResponse as _docex_document_v1_ApplyDocumentChangesResponse } from '../../../docex/document/v1/ApplyDocumentChangesResponse.js';
import type { FileChunkInput as _docex_document_v1_FileChunkInput, FileChunk as _docex_document_v1_FileChunk } from '../../../docex/document/v1/FileChunk.js';
import type { GetDocumentRequestInput as _docex_document_v1_GetDocumentRequestInput, GetDocumentRequest as _docex_document_v1_GetDocumentRequest } from '../../../docex/document/v1/GetDocumentRequest.js';
import type { GetDocumentResponseInput as _docex_document_v1_GetDocumentResponseInput, GetDocumentResponse as _docex_document_v1_GetDocumentResponse } from '../../../docex/document/v1/GetDocumentResponse.js';
import type { GetQueueRequestInput as _docex_document_v1_GetQueueRequestInput, GetQueueRequest as _docex_document_v1_GetQueueRequest } from '../../../docex/document/v1/GetQueueRequest.js';
import type { GetQueueResponseInput as _docex_document_v1_GetQueueResponseInput, GetQueueResponse as _docex_document_v1_GetQueueResponse } from '../../../docex/document/v1/GetQueueResponse.js';
import type { HasValidationLinkRequestInput as _docex_document_v1_HasValidationLinkRequestInput, HasValidationLinkRequest as _docex_document_v1_HasValidationLinkRequest } from '../../../docex/document/v1/HasValidationLinkRequest.js';
import type { HasValidationLinkResponseInput as _docex_document_v1_HasValidationLinkResponseInput, HasValidationLinkResponse as _docex_document_v1_HasValidationLinkResponse } from '../../../docex/document/v1/HasValidationLinkResponse.js';
import type { ReadDocumentFileRequestInput as _docex_document_v1_ReadDocumentFileRequestInput, ReadDocumentFileRequest as _docex_document_v1_ReadDocumentFileRequest } from '../../../docex/document/v1/ReadDocumentFileRequest.js';
import type { ReceiveEmailDocumentRequestInput as _docex_document_v1_ReceiveEmailDocumentRequestInput, ReceiveEmailDocumentRequest as _docex_document_v1_ReceiveEmailDocumentRequest } from '../../../docex/document/v1/ReceiveEmailDocumentRequest.js';
import type { ReceiveEmailDocumentResponseInput as _docex_document_v1_ReceiveEmailDocumentResponseInput, ReceiveEmailDocumentResponse as _docex_document_v1_ReceiveEmailDocumentResponse } from '../../../docex/document/v1/ReceiveEmailDocumentResponse.js';
import type { RecordExtractionRequestInput as _docex_document_v1_RecordExtractionRequestInput, RecordExtractionRequest as _docex_document_v1_RecordExtractionRequest } from '../../../docex/document/v1/RecordExtractionRequest.js';
import type { RecordExtractionResponseInput as _docex_document_v1_RecordExtractionResponseInput, RecordExtractionResponse as _docex_document_v1_RecordExtractionResponse } from '../../../docex/document/v1/RecordExtractionResponse.js';
import type { RecordValidationWebhookRequestInput as _docex_document_v1_RecordValidationWebhookRequestInput, RecordValidationWebhookRequest as _docex_document_v1_RecordValidationWebhookRequest } from '../../../docex/document/v1/RecordValidationWebhookRequest.js';
import type { RecordValidationWebhookResponseInput as _docex_document_v1_RecordValidationWebhookResponseInput, RecordValidationWebhookResponse as _docex_document_v1_RecordValidationWebhookResponse } from '../../../docex/document/v1/RecordValidationWebhookResponse.js';
import type { ResolveEntityRequestInput as _docex_document_v1_ResolveEntityRequestInput, ResolveEntityRequest as _docex_document_v1_ResolveEntityRequest } from '../../../docex/document/v1/ResolveEntityRequest.js';
import type { ResolveEntityResponseInput as _docex_document_v1_ResolveEntityResponseInput, ResolveEntityResponse as _docex_document_v1_ResolveEntityResponse } from '../../../docex/document/v1/ResolveEntityResponse.js';
import type { ResolveInboxRequestInput as _docex_document_v1_ResolveInboxRequestInput, ResolveInboxRequest as _docex_document_v1_ResolveInboxRequest } from '../../../docex/document/v1/ResolveInboxRequest.js';
import type { ResolveInboxResponseInput as _docex_document_v1_ResolveInboxResponseInput, ResolveInboxResponse as _docex_document_v1_ResolveInboxResponse } from '../../../docex/document/v1/ResolveInboxResponse.js';

/**
 * Documents: workspaces, queues, documents, their annotations, messages and status.
 */
export interface DocumentClient extends grpc.Client {
  /**
   * Changes a document on behalf of another context (automation rules, learned values, validation answers).
   * Refusals the caller should expect (stale version, a status move that is not allowed) answer applied = false
   * with a reason; NOT_FOUND for an unknown document, INVALID_ARGUMENT for malformed JSON or an unknown source.
   */
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  ApplyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  /**
   * Changes a document on behalf of another context (automation rules, learned values, validation answers).
   * Refusals the caller should expect (stale version, a status move that is not allowed) answer applied = false
   * with a reason; NOT_FOUND for an unknown document, INVALID_ARGUMENT for malformed JSON or an unknown source.
   */
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  applyDocumentChanges(argument: _docex_document_v1_ApplyDocumentChangesRequestInput, callback: grpc.requestCallback<_docex_document_v1_ApplyDocumentChangesResponse>): grpc.ClientUnaryCall;
  
  /**
   * NOT_FOUND for an unknown document.
   */
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  GetDocument(argument: _docex_document_v1_GetDocumentRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  /**
   * NOT_FOUND for an unknown document.
   */
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  getDocument(argument: _docex_document_v1_GetDocumentRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetDocumentResponse>): grpc.ClientUnaryCall;
  
  /**
   * NOT_FOUND for an unknown queue.
   */
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  GetQueue(argument: _docex_document_v1_GetQueueRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  /**
   * NOT_FOUND for an unknown queue.
   */
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  getQueue(argument: _docex_document_v1_GetQueueRequestInput, callback: grpc.requestCallback<_docex_document_v1_GetQueueResponse>): grpc.ClientUnaryCall;
  
  /**
   * Whether the queue has an external validation link of the type (its configuration here): a validation webhook of
   * the deprecated API beside it is refused. NOT_FOUND for a queue of another organization or none.
   */
  HasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  HasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  HasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  HasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  /**
   * Whether the queue has an external validation link of the type (its configuration here): a validation webhook of
   * the deprecated API beside it is refused. NOT_FOUND for a queue of another organization or none.
   */
  hasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  hasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  hasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  hasValidationLink(argument: _docex_document_v1_HasValidationLinkRequestInput, callback: grpc.requestCallback<_docex_document_v1_HasValidationLinkResponse>): grpc.ClientUnaryCall;
  
  /**
   * Streams the document's kept file; NOT_FOUND for an unknown document or one without a file.
   */
  ReadDocumentFile(argument: _docex_document_v1_ReadDocumentFileRequestInput, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_docex_document_v1_FileChunk>;
  ReadDocumentFile(argument: _docex_document_v1_ReadDocumentFileRequestInput, options?: grpc.CallOptions): grpc.ClientReadableStream<_docex_document_v1_FileChunk>;
  /**
   * Streams the document's kept file; NOT_FOUND for an unknown document or one without a file.
   */
  readDocumentFile(argument: _docex_document_v1_ReadDocumentFileRequestInput, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_docex_document_v1_FileChunk>;
  readDocumentFile(argument: _docex_document_v1_ReadDocumentFileRequestInput, options?: grpc.CallOptions): grpc.ClientReadableStream<_docex_document_v1_FileChunk>;
  
  /**
   * Keeps one attachment of a mail as a document of the inbox's queue, through the upload's path (type check, size limit,
   * quotas, duplicate file rejection, document.created). Idempotent per (queue, source_key): a retried mail answers the
   * document made the first time. NOT_FOUND when the address stopped; what the upload would refuse is answered with
   * `refused` (nothing kept), so that the intake can say why in its SMTP reply.
   */
  ReceiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  ReceiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  ReceiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  ReceiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  /**
   * Keeps one attachment of a mail as a document of the inbox's queue, through the upload's path (type check, size limit,
   * quotas, duplicate file rejection, document.created). Idempotent per (queue, source_key): a retried mail answers the
   * document made the first time. NOT_FOUND when the address stopped; what the upload would refuse is answered with
   * `refused` (nothing kept), so that the intake can say why in its SMTP reply.
   */
  receiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  receiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  receiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  receiveEmailDocument(argument: _docex_document_v1_ReceiveEmailDocumentRequestInput, callback: grpc.requestCallback<_docex_document_v1_ReceiveEmailDocumentResponse>): grpc.ClientUnaryCall;
  
  /**
   * Records the extraction result exactly as POST /documents/{id}/extraction does (learning suggestions, automation,
   * duplicates, initial_document_validation), on behalf of the built-in engine. Idempotent per idempotency_key.
   */
  RecordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  RecordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  RecordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  RecordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  /**
   * Records the extraction result exactly as POST /documents/{id}/extraction does (learning suggestions, automation,
   * duplicates, initial_document_validation), on behalf of the built-in engine. Idempotent per idempotency_key.
   */
  recordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  recordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  recordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  recordExtraction(argument: _docex_document_v1_RecordExtractionRequestInput, callback: grpc.requestCallback<_docex_document_v1_RecordExtractionResponse>): grpc.ClientUnaryCall;
  
  /**
   * A validation webhook of the deprecated API as it is now (created, or deleted: present false), as of changed_at:
   * which validator applies to a document is this service's configuration, so the webhook service tells it after
   * committing the webhook (and its configuration.changed, which this service consumes as the backstop). Idempotent;
   * an older state than the one recorded changes nothing. A queue's webhook of a type whose link the queue has is
   * replaced by the link (the webhook service is told to delete it).
   */
  RecordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  RecordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  RecordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  RecordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  /**
   * A validation webhook of the deprecated API as it is now (created, or deleted: present false), as of changed_at:
   * which validator applies to a document is this service's configuration, so the webhook service tells it after
   * committing the webhook (and its configuration.changed, which this service consumes as the backstop). Idempotent;
   * an older state than the one recorded changes nothing. A queue's webhook of a type whose link the queue has is
   * replaced by the link (the webhook service is told to delete it).
   */
  recordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  recordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  recordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  recordValidationWebhook(argument: _docex_document_v1_RecordValidationWebhookRequestInput, callback: grpc.requestCallback<_docex_document_v1_RecordValidationWebhookResponse>): grpc.ClientUnaryCall;
  
  /**
   * Finds an entity by UUID or humanized id (documents: UUID only) and names its ancestors.
   * NOT_FOUND when it does not exist, or when organization_id is set and the entity belongs to another organization.
   */
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  ResolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  /**
   * Finds an entity by UUID or humanized id (documents: UUID only) and names its ancestors.
   * NOT_FOUND when it does not exist, or when organization_id is set and the entity belongs to another organization.
   */
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  resolveEntity(argument: _docex_document_v1_ResolveEntityRequestInput, callback: grpc.requestCallback<_docex_document_v1_ResolveEntityResponse>): grpc.ClientUnaryCall;
  
  /**
   * The queue whose inbox an address of INTAKE_MAIL_DOMAIN names, read from the database (a rotated token is unknown at
   * once). NOT_FOUND for an address no queue has.
   */
  ResolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  ResolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  ResolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  ResolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  /**
   * The queue whose inbox an address of INTAKE_MAIL_DOMAIN names, read from the database (a rotated token is unknown at
   * once). NOT_FOUND for an address no queue has.
   */
  resolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  resolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  resolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  resolveInbox(argument: _docex_document_v1_ResolveInboxRequestInput, callback: grpc.requestCallback<_docex_document_v1_ResolveInboxResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Documents: workspaces, queues, documents, their annotations, messages and status.
 */
export interface DocumentHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Changes a document on behalf of another context (automation rules, learned values, validation answers).
   * Refusals the caller should expect (stale version, a status move that is not allowed) answer applied = false
   * with a reason; NOT_FOUND for an unknown document, INVALID_ARGUMENT for malformed JSON or an unknown source.
   */
  ApplyDocumentChanges: grpc.handleUnaryCall<_docex_document_v1_ApplyDocumentChangesRequest, _docex_document_v1_ApplyDocumentChangesResponseInput>;
  
  /**
   * NOT_FOUND for an unknown document.
   */
  GetDocument: grpc.handleUnaryCall<_docex_document_v1_GetDocumentRequest, _docex_document_v1_GetDocumentResponseInput>;
  
  /**
   * NOT_FOUND for an unknown queue.
   */
  GetQueue: grpc.handleUnaryCall<_docex_document_v1_GetQueueRequest, _docex_document_v1_GetQueueResponseInput>;
  
  /**
   * Whether the queue has an external validation link of the type (its configuration here): a validation webhook of
   * the deprecated API beside it is refused. NOT_FOUND for a queue of another organization or none.
   */
  HasValidationLink: grpc.handleUnaryCall<_docex_document_v1_HasValidationLinkRequest, _docex_document_v1_HasValidationLinkResponseInput>;
  
  /**
   * Streams the document's kept file; NOT_FOUND for an unknown document or one without a file.
   */
  ReadDocumentFile: grpc.handleServerStreamingCall<_docex_document_v1_ReadDocumentFileRequest, _docex_document_v1_FileChunkInput>;
  
  /**
   * Keeps one attachment of a mail as a document of the inbox's queue, through the upload's path (type check, size limit,
   * quotas, duplicate file rejection, document.created). Idempotent per (queue, source_key): a retried mail answers the
   * document made the first time. NOT_FOUND when the address stopped; what the upload would refuse is answered with
   * `refused` (nothing kept), so that the intake can say why in its SMTP reply.
   */
  ReceiveEmailDocument: grpc.handleUnaryCall<_docex_document_v1_ReceiveEmailDocumentRequest, _docex_document_v1_ReceiveEmailDocumentResponseInput>;
  
  /**
   * Records the extraction result exactly as POST /documents/{id}/extraction does (learning suggestions, automation,
   * duplicates, initial_document_validation), on behalf of the built-in engine. Idempotent per idempotency_key.
   */
  RecordExtraction: grpc.handleUnaryCall<_docex_document_v1_RecordExtractionRequest, _docex_document_v1_RecordExtractionResponseInput>;
  
  /**
   * A validation webhook of the deprecated API as it is now (created, or deleted: present false), as of changed_at:
   * which validator applies to a document is this service's configuration, so the webhook service tells it after
   * committing the webhook (and its configuration.changed, which this service consumes as the backstop). Idempotent;
   * an older state than the one recorded changes nothing. A queue's webhook of a type whose link the queue has is
   * replaced by the link (the webhook service is told to delete it).
   */
  RecordValidationWebhook: grpc.handleUnaryCall<_docex_document_v1_RecordValidationWebhookRequest, _docex_document_v1_RecordValidationWebhookResponseInput>;
  
  /**
   * Finds an entity by UUID or humanized id (documents: UUID only) and names its ancestors.
   * NOT_FOUND when it does not exist, or when organization_id is set and the entity belongs to another organization.
   */
  ResolveEntity: grpc.handleUnaryCall<_docex_document_v1_ResolveEntityRequest, _docex_document_v1_ResolveEntityResponseInput>;
  
  /**
   * The queue whose inbox an address of INTAKE_MAIL_DOMAIN names, read from the database (a rotated token is unknown at
   * once). NOT_FOUND for an address no queue has.
   */
  ResolveInbox: grpc.handleUnaryCall<_docex_document_v1_ResolveInboxRequest, _docex_document_v1_ResolveInboxResponseInput>;
  
}

export interface DocumentDefinition extends grpc.ServiceDefinition {
  ApplyDocumentChanges: MethodDefinition<_docex_document_v1_ApplyDocumentChangesRequestInput, _docex_document_v1_ApplyDocumentChangesResponseInput, _docex_document_v1_ApplyDocumentChangesRequest, _docex_document_v1_ApplyDocumentChangesResponse>
  GetDocument: MethodDefinition<_docex_document_v1_GetDocumentRequestInput, _docex_document_v1_GetDocumentResponseInput, _docex_document_v1_GetDocumentRequest, _docex_document_v1_GetDocumentResponse>
  GetQueue: MethodDefinition<_docex_document_v1_GetQueueRequestInput, _docex_document_v1_GetQueueResponseInput, _docex_document_v1_GetQueueRequest, _docex_document_v1_GetQueueResponse>
  HasValidationLink: MethodDefinition<_docex_document_v1_HasValidationLinkRequestInput, _docex_document_v1_HasValidationLinkResponseInput, _docex_document_v1_HasValidationLinkRequest, _docex_document_v1_HasValidationLinkResponse>
  ReadDocumentFile: MethodDefinition<_docex_document_v1_ReadDocumentFileRequestInput, _docex_document_v1_FileChunkInput, _docex_document_v1_ReadDocumentFileRequest, _docex_document_v1_FileChunk>
  ReceiveEmailDocument: MethodDefinition<_docex_document_v1_ReceiveEmailDocumentRequestInput, _docex_document_v1_ReceiveEmailDocumentResponseInput, _docex_document_v1_ReceiveEmailDocumentRequest, _docex_document_v1_ReceiveEmailDocumentResponse>
  RecordExtraction: MethodDefinition<_docex_document_v1_RecordExtractionRequestInput, _docex_document_v1_RecordExtractionResponseInput, _docex_document_v1_RecordExtractionRequest, _docex_document_v1_RecordExtractionResponse>
  RecordValidationWebhook: MethodDefinition<_docex_document_v1_RecordValidationWebhookRequestInput, _docex_document_v1_RecordValidationWebhookResponseInput, _docex_document_v1_RecordValidationWebhookRequest, _docex_document_v1_RecordValidationWebhookResponse>
  ResolveEntity: MethodDefinition<_docex_document_v1_ResolveEntityRequestInput, _docex_document_v1_ResolveEntityResponseInput, _docex_document_v1_ResolveEntityRequest, _docex_document_v1_ResolveEntityResponse>
  ResolveInbox: MethodDefinition<_docex_document_v1_ResolveInboxRequestInput, _docex_document_v1_ResolveInboxResponseInput, _docex_document_v1_ResolveInboxRequest, _docex_document_v1_ResolveInboxResponse>
}
