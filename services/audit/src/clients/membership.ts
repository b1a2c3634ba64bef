import { type GrpcIdentity, isUuid, type Metrics, NotFoundError } from "@docex/kit";
import { createMembershipClient } from "@docex/protos";
import type { CallContext, Membership } from "../domain/readers.js";

export interface MembershipClientOptions {
  /** This service's certificate, presented to membership (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  deadlineMs: number;
  metrics?: Metrics;
}

const context = (ctx?: CallContext) => (ctx?.requestId ? { requestId: ctx.requestId } : {});

/**
 * Membership over gRPC (CheckPermission, GetOrganization, ListOrganizationsOfUser): a deadline, and a breaker so that
 * an unreachable membership answers 503 at once. Not cached: the audit log is read rarely, and an answer is never stale.
 */
export function membershipClient(address: string, options: MembershipClientOptions): Membership & { close(): void } {
  const client = createMembershipClient(address, { ...options, breaker: { resetTimeoutMs: 5_000 } });
  return {
    async organizationId(ref, ctx) {
      if (isUuid(ref)) return ref.toLowerCase();
      // Humanized ids are lowercase; membership's own routes never matched another spelling.
      if (ref !== ref.toLowerCase()) return undefined;
      try {
        const { organization } = await client.getOrganization({ id_or_humanized: ref }, context(ctx));
        return organization?.id;
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
    async readAccess(organizationId, userId, ctx) {
      // Membership knows users by UUID; a token naming anything else belongs to nobody it knows.
      if (!isUuid(userId)) return "not_member";
      const answer = await client.checkPermission(
        { user_id: userId, organization_id: organizationId, permission: "audit_log.read" },
        context(ctx),
      );
      if (!answer.is_member) return "not_member";
      return answer.allowed ? "allowed" : "forbidden";
    },
    async organizationsOfMember(userId) {
      if (!isUuid(userId)) return [];
      const answer = await client.listOrganizationsOfUser({ user_id: userId, include_deactivated: true });
      return answer.organizations.map((organization) => organization.id);
    },
    close: () => client.close(),
  };
}
