import { undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { type AuthClient, createAuthClient, type User } from "@docex/protos";
import type { AuthUser, AuthUserStatus, UserDirectory } from "../domain/user-directory.js";

function authUserOf(user: User): AuthUser {
  const status: AuthUserStatus = user.status === "invited" || user.status === "deactivated" ? user.status : "active";
  return { id: user.id, email: user.email, name: user.name || null, status };
}

/**
 * auth over gRPC: one client per process, a short deadline (an invitation is sent while a request
 * waits) and a circuit breaker, so a failing auth answers at once instead of holding requests.
 */
export function authUserDirectory(address: string, identity: GrpcIdentity, metrics?: Metrics): UserDirectory {
  const client: AuthClient = createAuthClient(address, {
    identity,
    deadlineMs: 3_000,
    ...(metrics ? { metrics } : {}),
    breaker: { resetTimeoutMs: 10_000 },
  });
  return {
    async findByEmail(email, ctx) {
      const answer = await client.findUserByEmail({ email }, ctx);
      return answer.found && answer.user ? authUserOf(answer.user) : undefined;
    },
    async get(userId, ctx) {
      const answer = await undefinedIfNotFound(client.getUser({ user_id: userId }, ctx));
      return answer?.user ? authUserOf(answer.user) : undefined;
    },
    async invite(invitation, ctx) {
      const answer = await client.createInvitation(
        {
          email: invitation.email,
          organization_id: invitation.organizationId,
          organization_name: invitation.organizationName,
          invited_by: invitation.invitedBy,
          locale: "",
          expires_at: invitation.expiresAt.toISOString(),
        },
        ctx,
      );
      return { userId: answer.user_id, created: answer.created };
    },
    close: () => client.close(),
  };
}
