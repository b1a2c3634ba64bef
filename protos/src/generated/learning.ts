import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { LearningClient as _docex_learning_v1_LearningClient, LearningDefinition as _docex_learning_v1_LearningDefinition } from './docex/learning/v1/Learning.js';
import type { SuggestRequestInput as _docex_learning_v1_SuggestRequestInput, SuggestRequest as _docex_learning_v1_SuggestRequest } from './docex/learning/v1/SuggestRequest.js';
import type { SuggestResponseInput as _docex_learning_v1_SuggestResponseInput, SuggestResponse as _docex_learning_v1_SuggestResponse } from './docex/learning/v1/SuggestResponse.js';
import type { SuggestedFieldInput as _docex_learning_v1_SuggestedFieldInput, SuggestedField as _docex_learning_v1_SuggestedField } from './docex/learning/v1/SuggestedField.js';
import type { SupplierInput as _docex_learning_v1_SupplierInput, Supplier as _docex_learning_v1_Supplier } from './docex/learning/v1/Supplier.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    learning: {
      v1: {
        /**
         * Learning: feedback, relearn instructions and the per-queue, per-supplier field memory.
         */
        Learning: SubtypeConstructor<typeof grpc.Client, _docex_learning_v1_LearningClient> & { service: _docex_learning_v1_LearningDefinition }
        SuggestRequest: MessageTypeDefinition<_docex_learning_v1_SuggestRequestInput, _docex_learning_v1_SuggestRequest>
        SuggestResponse: MessageTypeDefinition<_docex_learning_v1_SuggestResponseInput, _docex_learning_v1_SuggestResponse>
        SuggestedField: MessageTypeDefinition<_docex_learning_v1_SuggestedFieldInput, _docex_learning_v1_SuggestedField>
        Supplier: MessageTypeDefinition<_docex_learning_v1_SupplierInput, _docex_learning_v1_Supplier>
      }
    }
  }
}

