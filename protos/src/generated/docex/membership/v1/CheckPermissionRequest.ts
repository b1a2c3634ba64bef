// Original file: membership.proto


export interface CheckPermissionRequestInput {
  'user_id'?: (string);
  'organization_id'?: (string);
  /**
   * One of:
   * "document.read"      read workspaces, queues and documents (an approver only the documents assigned to them)
   * "document.edit"      edit annotations, change status, learn, relearn
   * "document.approve"   approve or reject a document
   * "workspace.create"   create workspaces
   * "queue.manage"       create queues; manage automation, extraction evaluation, registers, webhooks, validation links
   * "signing_key.manage" create or read the organization's webhook signing key
   * "user.manage"        assign roles and manage user schemas (the per-member rules are membership's own)
   */
  'permission'?: (string);
  /**
   * Limits the check to one queue; absent checks the organization as a whole.
   */
  'queue_id'?: (string);
  '_queue_id'?: "queue_id";
}

export interface CheckPermissionRequest {
  'user_id': (string);
  'organization_id': (string);
  /**
   * One of:
   * "document.read"      read workspaces, queues and documents (an approver only the documents assigned to them)
   * "document.edit"      edit annotations, change status, learn, relearn
   * "document.approve"   approve or reject a document
   * "workspace.create"   create workspaces
   * "queue.manage"       create queues; manage automation, extraction evaluation, registers, webhooks, validation links
   * "signing_key.manage" create or read the organization's webhook signing key
   * "user.manage"        assign roles and manage user schemas (the per-member rules are membership's own)
   */
  'permission': (string);
  /**
   * Limits the check to one queue; absent checks the organization as a whole.
   */
  'queue_id'?: (string);
  '_queue_id'?: "queue_id";
}
