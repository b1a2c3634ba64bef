import { MembershipPermissions } from "@docex/access";
import { undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import { isUuid } from "@docex/kit/ids";
import type { Metrics } from "@docex/kit/metrics";
import type { Membership } from "../domain/readers.js";

export interface MembershipClientOptions {
  /** This service's certificate, presented to membership (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  deadlineMs: number;
  metrics?: Metrics;
}

/**
 * Membership over gRPC through @docex/access (deadline, breaker): CheckPermission, and on the same connection
 * GetOrganization and ListOrganizationsOfUser. Permission answers are not cached (cacheMs 0): the log is read
 * rarely, and as when membership served it, a role changed a moment ago is the role that counts.
 */
export function membershipClient(address: string, options: MembershipClientOptions): Membership & { close(): Promise<void> } {
  const membership = MembershipPermissions.connect(address, { ...options, cacheMs: 0 });
  return {
    async organizationId(ref, ctx) {
      if (isUuid(ref)) return ref.toLowerCase();
      // Humanized ids are lowercase; membership's own routes never matched another spelling.
      if (ref !== ref.toLowerCase()) return undefined;
      const answer = await undefinedIfNotFound(membership.client.getOrganization({ id_or_humanized: ref }, ctx));
      return answer?.organization?.id;
    },
    async readAccess(organizationId, userId, ctx) {
      const answer = await membership.checkPermission({ userId, organizationId, permission: "audit_log.read" }, ctx);
      if (!answer.isMember) return "not_member";
      return answer.allowed ? "allowed" : "forbidden";
    },
    async organizationsOfMember(userId) {
      if (!isUuid(userId)) return [];
      const answer = await membership.client.listOrganizationsOfUser({ user_id: userId, include_deactivated: true });
      return answer.organizations.map((organization) => organization.id);
    },
    close: () => membership.close(),
  };
}
