/** What membership answers about a caller and the audit log of one organization. */
export type ReadAccess = "allowed" | "forbidden" | "not_member";

export interface CallContext {
  requestId?: string;
}

/**
 * What the audit log needs of membership, which decides who may do what (this service keeps no roles): the
 * organization a path names, whether a caller may read its log, and where a user's logins are filed.
 */
export interface Membership {
  /** The organization's UUID from its UUID or humanized id; undefined when there is none. */
  organizationId(ref: string, ctx?: CallContext): Promise<string | undefined>;
  /** `audit_log.read` of the caller in the organization; `not_member` also for a deactivated membership. */
  readAccess(organizationId: string, userId: string, ctx?: CallContext): Promise<ReadAccess>;
  /** The organizations where the user has an accepted membership, active or deactivated (not a pending invitation). */
  organizationsOfMember(userId: string): Promise<string[]>;
}
