export type AuthUserStatus = "active" | "invited" | "deactivated";

export interface AuthUser {
  id: string;
  email: string;
  /** Null when the user has not given one. */
  name: string | null;
  status: AuthUserStatus;
}

export interface InvitationRequest {
  email: string;
  organizationId: string;
  organizationName: string;
  invitedBy: string;
  /** When the invitation, and so its mailed token, expires. */
  expiresAt: Date;
}

export interface CallContext {
  requestId?: string;
}

/** What membership needs of identity: who a user is, and invitations that create users. */
export interface UserDirectory {
  /** Undefined when no user has this email. */
  findByEmail(email: string, ctx: CallContext): Promise<AuthUser | undefined>;
  /** Undefined when no user has this id. */
  get(userId: string, ctx: CallContext): Promise<AuthUser | undefined>;
  /**
   * Creates the user (status invited) when the email is unknown and mails an invitation token bound to the organization,
   * whether or not the email was known. `created` is for logs only: nothing of it may reach the inviter.
   */
  invite(invitation: InvitationRequest, ctx: CallContext): Promise<{ userId: string; created: boolean }>;
  close(): void;
}
