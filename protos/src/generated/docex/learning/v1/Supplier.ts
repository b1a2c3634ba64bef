// Original file: learning.proto


/**
 * Identified by tax_id, else register_id, else name (the first one that is not empty).
 */
export interface SupplierInput {
  'tax_id'?: (string);
  'register_id'?: (string);
  'name'?: (string);
}

/**
 * Identified by tax_id, else register_id, else name (the first one that is not empty).
 */
export interface Supplier {
  'tax_id': (string);
  'register_id': (string);
  'name': (string);
}
