// Original file: learning.proto

import type { SupplierInput as _docex_learning_v1_SupplierInput, Supplier as _docex_learning_v1_Supplier } from '../../../docex/learning/v1/Supplier.js';

export interface SuggestRequestInput {
  'queue_id'?: (string);
  'supplier'?: (_docex_learning_v1_SupplierInput | null);
}

export interface SuggestRequest {
  'queue_id': (string);
  'supplier': (_docex_learning_v1_Supplier | null);
}
