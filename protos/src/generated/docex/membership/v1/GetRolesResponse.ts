// Original file: membership.proto


export interface GetRolesResponseInput {
  /**
   * "owner" | "supervisor" | "admin" | "editor" | "approver" | "viewer"; empty when not a member.
   */
  'role'?: (string);
  /**
   * The queues the membership is limited to; meaningful only when all_queues is false.
   */
  'queue_ids'?: (string)[];
  /**
   * True when the membership covers every queue of the organization (queue_ids null in the API).
   */
  'all_queues'?: (boolean);
  /**
   * "active" | "deactivated"; empty when not a member.
   */
  'status'?: (string);
}

export interface GetRolesResponse {
  /**
   * "owner" | "supervisor" | "admin" | "editor" | "approver" | "viewer"; empty when not a member.
   */
  'role': (string);
  /**
   * The queues the membership is limited to; meaningful only when all_queues is false.
   */
  'queue_ids': (string)[];
  /**
   * True when the membership covers every queue of the organization (queue_ids null in the API).
   */
  'all_queues': (boolean);
  /**
   * "active" | "deactivated"; empty when not a member.
   */
  'status': (string);
}
