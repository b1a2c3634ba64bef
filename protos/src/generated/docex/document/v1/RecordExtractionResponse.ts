// Original file: document.proto


export interface RecordExtractionResponseInput {
  'applied'?: (boolean);
  /**
   * Empty when applied; otherwise "already_recorded" | "status_move_not_allowed".
   */
  'reason'?: (string);
}

export interface RecordExtractionResponse {
  'applied': (boolean);
  /**
   * Empty when applied; otherwise "already_recorded" | "status_move_not_allowed".
   */
  'reason': (string);
}
