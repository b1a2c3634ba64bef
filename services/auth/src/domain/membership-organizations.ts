/** What auth needs of membership: the organization of a user who finished self-registration, and accepted invitations. */
export interface MembershipOrganizations {
  /** Idempotent per owner: a repeated call answers the organization created the first time. */
  createForOnboarding(input: { ownerUserId: string; name: string }, ctx: { requestId?: string }): Promise<{ organizationId: string }>;
  /**
   * AcceptInvitation: the user becomes a member of the organization that invited them. `false` when the organization
   * has no open invitation of theirs (withdrawn or expired); accepting twice is fine.
   */
  acceptInvitation(
    input: { organizationId: string; userId: string; email: string; name: string },
    ctx: { requestId?: string },
  ): Promise<boolean>;
  close(): void;
}
