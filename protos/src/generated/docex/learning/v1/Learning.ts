// Original file: learning.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { SuggestRequestInput as _docex_learning_v1_SuggestRequestInput, SuggestRequest as _docex_learning_v1_SuggestRequest } from '../../../docex/learning/v1/SuggestRequest.js';
import type { SuggestResponseInput as _docex_learning_v1_SuggestResponseInput, SuggestResponse as _docex_learning_v1_SuggestResponse } from '../../../docex/learning/v1/SuggestResponse.js';

/**
 * Learning: feedback, relearn instructions and the per-queue, per-supplier field memory.
 */
export interface LearningClient extends grpc.Client {
  /**
   * What the queue remembers for a supplier. An unknown supplier answers no fields.
   */
  Suggest(argument: _docex_learning_v1_SuggestRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  Suggest(argument: _docex_learning_v1_SuggestRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  Suggest(argument: _docex_learning_v1_SuggestRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  Suggest(argument: _docex_learning_v1_SuggestRequestInput, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  /**
   * What the queue remembers for a supplier. An unknown supplier answers no fields.
   */
  suggest(argument: _docex_learning_v1_SuggestRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  suggest(argument: _docex_learning_v1_SuggestRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  suggest(argument: _docex_learning_v1_SuggestRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  suggest(argument: _docex_learning_v1_SuggestRequestInput, callback: grpc.requestCallback<_docex_learning_v1_SuggestResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Learning: feedback, relearn instructions and the per-queue, per-supplier field memory.
 */
export interface LearningHandlers extends grpc.UntypedServiceImplementation {
  /**
   * What the queue remembers for a supplier. An unknown supplier answers no fields.
   */
  Suggest: grpc.handleUnaryCall<_docex_learning_v1_SuggestRequest, _docex_learning_v1_SuggestResponseInput>;
  
}

export interface LearningDefinition extends grpc.ServiceDefinition {
  Suggest: MethodDefinition<_docex_learning_v1_SuggestRequestInput, _docex_learning_v1_SuggestResponseInput, _docex_learning_v1_SuggestRequest, _docex_learning_v1_SuggestResponse>
}
