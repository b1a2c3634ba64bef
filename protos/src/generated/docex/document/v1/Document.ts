// Original file: document.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ApplyDocumentChangesRequestInput as _docex_document_v1_ApplyDocumentChangesRequestInput, ApplyDocumentChangesRequest as _docex_document_v1_ApplyDocumentChangesRequest } from '../../../docex/document/v1/ApplyDocumentChangesRequest.js';
import type { ApplyDocumentChangesResponseInput as _docex_document_v1_ApplyDocumentChangesResponseInput, ApplyDocumentChangesResponse as _docex_document_v1_ApplyDocumentChangesResponse } from '../../../docex/document/v1/ApplyDocumentChangesResponse.js';
import type { ExpectValidatorRequestInput as _docex_document_v1_ExpectValidatorRequestInput, ExpectValidatorRequest as _docex_document_v1_ExpectValidatorRequest } from '../../../docex/document/v1/ExpectValidatorRequest.js';
import type { ExpectValidatorResponseInput as _docex_document_v1_ExpectValidatorResponseInput, ExpectValidatorResponse as _docex_document_v1_ExpectValidatorResponse } from '../../../docex/document/v1/ExpectValidatorResponse.js';
import type { FileChunkInput as _docex_document_v1_FileChunkInput, FileChunk as _docex_document_v1_FileChunk } from '../../../docex/document/v1/FileChunk.js';
import type { GetDocumentRequestInput as _docex_document_v1_GetDocumentRequestInput, GetDocumentRequest as _docex_document_v1_GetDocumentRequest } from '../../../docex/document/v1/GetDocumentRequest.js';
import type { GetDocumentResponseInput as _docex_document_v1_GetDocumentResponseInput, GetDocumentResponse as _docex_document_v1_GetDocumentResponse } from '../../../docex/document/v1/GetDocumentResponse.js';
import type { GetQueueRequestInput as _docex_document_v1_GetQueueRequestInput, GetQueueRequest as _docex_document_v1_GetQueueRequest } from '../../../docex/document/v1/GetQueueRequest.js';
import type { GetQueueResponseInput as _docex_document_v1_GetQueueResponseInput, GetQueueResponse as _docex_document_v1_GetQueueResponse } from '../../../docex/document/v1/GetQueueResponse.js';
import type { ReadDocumentFileRequestInput as _docex_document_v1_ReadDocumentFileRequestInput, ReadDocumentFileRequest as _docex_document_v1_ReadDocumentFileRequest } from '../../../docex/document/v1/ReadDocumentFileRequest.js';
import type { ReceiveEmailDocumentRequestInput as _docex_document_v1_ReceiveEmailDocumentRequestInput, ReceiveEmailDocumentRequest as _docex_document_v1_ReceiveEmailDocumentRequest } from '../../../docex/document/v1/ReceiveEmailDocumentRequest.js';
import type { ReceiveEmailDocumentResponseInput as _docex_document_v1_ReceiveEmailDocumentResponseInput, ReceiveEmailDocumentResponse as _docex_document_v1_ReceiveEmailDocumentResponse } from '../../../docex/document/v1/ReceiveEmailDocumentResponse.js';
import type { RecordExtractionRequestInput as _docex_document_v1_RecordExtractionRequestInput, RecordExtractionRequest as _docex_document_v1_RecordExtractionRequest } from '../../../docex/document/v1/RecordExtractionRequest.js';
import type { RecordExtractionResponseInput as _docex_document_v1_RecordExtractionResponseInput, RecordExtractionResponse as _docex_document_v1_RecordExtractionResponse } from '../../../docex/document/v1/RecordExtractionResponse.js';
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
   * Notes that a validator of `type` may exist on the entity from now on: the webhook service calls it inside the
   * transaction that creates or changes a validation link or validation webhook, before it commits. The document
   * service then asks Validate for the entity's documents even before the change's configuration.changed event
   * arrives (without a note, a document whose projection shows no validator is not asked about). Idempotent.
   */
  ExpectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  ExpectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  ExpectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  ExpectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  /**
   * Notes that a validator of `type` may exist on the entity from now on: the webhook service calls it inside the
   * transaction that creates or changes a validation link or validation webhook, before it commits. The document
   * service then asks Validate for the entity's documents even before the change's configuration.changed event
   * arrives (without a note, a document whose projection shows no validator is not asked about). Idempotent.
   */
  expectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  expectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  expectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  expectValidator(argument: _docex_document_v1_ExpectValidatorRequestInput, callback: grpc.requestCallback<_docex_document_v1_ExpectValidatorResponse>): grpc.ClientUnaryCall;
  
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
   * Notes that a validator of `type` may exist on the entity from now on: the webhook service calls it inside the
   * transaction that creates or changes a validation link or validation webhook, before it commits. The document
   * service then asks Validate for the entity's documents even before the change's configuration.changed event
   * arrives (without a note, a document whose projection shows no validator is not asked about). Idempotent.
   */
  ExpectValidator: grpc.handleUnaryCall<_docex_document_v1_ExpectValidatorRequest, _docex_document_v1_ExpectValidatorResponseInput>;
  
  /**
   * NOT_FOUND for an unknown document.
   */
  GetDocument: grpc.handleUnaryCall<_docex_document_v1_GetDocumentRequest, _docex_document_v1_GetDocumentResponseInput>;
  
  /**
   * NOT_FOUND for an unknown queue.
   */
  GetQueue: grpc.handleUnaryCall<_docex_document_v1_GetQueueRequest, _docex_document_v1_GetQueueResponseInput>;
  
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
  ExpectValidator: MethodDefinition<_docex_document_v1_ExpectValidatorRequestInput, _docex_document_v1_ExpectValidatorResponseInput, _docex_document_v1_ExpectValidatorRequest, _docex_document_v1_ExpectValidatorResponse>
  GetDocument: MethodDefinition<_docex_document_v1_GetDocumentRequestInput, _docex_document_v1_GetDocumentResponseInput, _docex_document_v1_GetDocumentRequest, _docex_document_v1_GetDocumentResponse>
  GetQueue: MethodDefinition<_docex_document_v1_GetQueueRequestInput, _docex_document_v1_GetQueueResponseInput, _docex_document_v1_GetQueueRequest, _docex_document_v1_GetQueueResponse>
  ReadDocumentFile: MethodDefinition<_docex_document_v1_ReadDocumentFileRequestInput, _docex_document_v1_FileChunkInput, _docex_document_v1_ReadDocumentFileRequest, _docex_document_v1_FileChunk>
  ReceiveEmailDocument: MethodDefinition<_docex_document_v1_ReceiveEmailDocumentRequestInput, _docex_document_v1_ReceiveEmailDocumentResponseInput, _docex_document_v1_ReceiveEmailDocumentRequest, _docex_document_v1_ReceiveEmailDocumentResponse>
  RecordExtraction: MethodDefinition<_docex_document_v1_RecordExtractionRequestInput, _docex_document_v1_RecordExtractionResponseInput, _docex_document_v1_RecordExtractionRequest, _docex_document_v1_RecordExtractionResponse>
  ResolveEntity: MethodDefinition<_docex_document_v1_ResolveEntityRequestInput, _docex_document_v1_ResolveEntityResponseInput, _docex_document_v1_ResolveEntityRequest, _docex_document_v1_ResolveEntityResponse>
  ResolveInbox: MethodDefinition<_docex_document_v1_ResolveInboxRequestInput, _docex_document_v1_ResolveInboxResponseInput, _docex_document_v1_ResolveInboxRequest, _docex_document_v1_ResolveInboxResponse>
}
