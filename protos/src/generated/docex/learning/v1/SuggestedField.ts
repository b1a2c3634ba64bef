// Original file: learning.proto


export interface SuggestedFieldInput {
  'key'?: (string);
  'value'?: (string);
  /**
   * True for a value set by relearn: it is applied even over a value the AI extracted.
   * False for a value learned from feedback: it only fills a field the AI left empty.
   */
  'pinned'?: (boolean);
}

export interface SuggestedField {
  'key': (string);
  'value': (string);
  /**
   * True for a value set by relearn: it is applied even over a value the AI extracted.
   * False for a value learned from feedback: it only fills a field the AI left empty.
   */
  'pinned': (boolean);
}
