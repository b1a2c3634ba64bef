// Original file: automation.proto


export interface PlanApprovalRouteResponseInput {
  /**
   * The approvers the rules assign: the route's current stage's and those assign_approvers adds; empty when none.
   */
  'approvers'?: (string)[];
  /**
   * JSON {stages: [{approver_ids, min_approvals?}], stage} (stage 0-based) when an assign_approval_route rule fired,
   * "" otherwise: the form of ApplyDocumentChangesRequest.approval_route_json.
   * Contract: approvalRouteJson of src/json-fields.ts.
   */
  'approval_route_json'?: (string);
  /**
   * Ids of the approval rules whose conditions matched, in the order they ran.
   */
  'applied_rules'?: (string)[];
}

export interface PlanApprovalRouteResponse {
  /**
   * The approvers the rules assign: the route's current stage's and those assign_approvers adds; empty when none.
   */
  'approvers': (string)[];
  /**
   * JSON {stages: [{approver_ids, min_approvals?}], stage} (stage 0-based) when an assign_approval_route rule fired,
   * "" otherwise: the form of ApplyDocumentChangesRequest.approval_route_json.
   * Contract: approvalRouteJson of src/json-fields.ts.
   */
  'approval_route_json': (string);
  /**
   * Ids of the approval rules whose conditions matched, in the order they ran.
   */
  'applied_rules': (string)[];
}
