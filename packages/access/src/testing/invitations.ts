import { createMembershipClient } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

/**
 * Invitees accept their invitations as auth relays it when they use the mailed token (membership's
 * AcceptInvitation, called with auth's certificate), for tests that run the real membership service.
 */
export async function acceptInvitations(
  membershipAddress: string,
  organizationId: string,
  invitees: ReadonlyArray<{ userId: string; email: string }>,
): Promise<void> {
  const membership = createMembershipClient(membershipAddress, { identity: testGrpcIdentity("auth"), deadlineMs: 5_000 });
  try {
    for (const { userId, email } of invitees) {
      await membership.acceptInvitation({ organization_id: organizationId, user_id: userId, email, name: "" });
    }
  } finally {
    membership.close();
  }
}
