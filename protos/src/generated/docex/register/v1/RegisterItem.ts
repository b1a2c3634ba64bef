// Original file: register.proto


export interface RegisterItemInput {
  'id'?: (string);
  'value'?: (string);
  'label'?: (string);
  'name'?: (string);
  /**
   * The company's register number (a field of the item), not the UUID of the register.
   */
  'register_id'?: (string);
  'tax_id'?: (string);
  /**
   * JSON object; "{}" when the item has no data.
   * Contract: registerItemDataJson of src/json-fields.ts.
   */
  'data_json'?: (string);
}

export interface RegisterItem {
  'id': (string);
  'value': (string);
  'label': (string);
  'name': (string);
  /**
   * The company's register number (a field of the item), not the UUID of the register.
   */
  'register_id': (string);
  'tax_id': (string);
  /**
   * JSON object; "{}" when the item has no data.
   * Contract: registerItemDataJson of src/json-fields.ts.
   */
  'data_json': (string);
}
