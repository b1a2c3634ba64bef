import type { AuthCallers, AuthHandlers, User as UserMessage } from "@docex/protos";
import type { UserDirectory } from "../domain/user-directory.js";
import type { User } from "../domain/users.js";

function userMessage(user: User): UserMessage {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    status: user.status,
    totp_enabled: user.totpEnabled,
    created_at: user.createdAt.toISOString(),
  };
}

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call auth today: a new caller is added here.
 */
export const authCallers: AuthCallers = {
  // membership: looks users up for invitations and members, and has auth invite the ones it does not know.
  GetUser: ["membership"],
  FindUserByEmail: ["membership"],
  CreateInvitation: ["membership"],
};

/** docex.auth.v1.Auth: what other services may ask of identity. */
export function authHandlers(directory: UserDirectory): AuthHandlers {
  return {
    async GetUser(request) {
      return { user: userMessage(await directory.get(request.user_id)) };
    },
    async FindUserByEmail(request) {
      const user = await directory.findByEmail(request.email);
      return user ? { found: true, user: userMessage(user) } : { found: false, user: null };
    },
    async CreateInvitation(request, ctx) {
      const invited = await directory.invite(
        {
          email: request.email,
          organizationId: request.organization_id,
          organizationName: request.organization_name,
          invitedBy: request.invited_by,
          locale: request.locale,
          ...(request.expires_at && !Number.isNaN(Date.parse(request.expires_at)) ? { expiresAt: new Date(request.expires_at) } : {}),
        },
        ctx.requestId,
      );
      return { user_id: invited.userId, created: invited.created };
    },
  };
}
