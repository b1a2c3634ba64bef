import {
  evictOnMembershipChanges,
  type GrpcIdentity,
  type Logger,
  type MembershipEviction,
  type Metrics,
  PermissionCache,
} from "@docex/kit";
import { createMembershipClient } from "@docex/protos";

/** The permissions of membership.proto's CheckPermission that automation asks about. */
export type Permission = "document.read" | "queue.manage";

export interface PermissionAnswer {
  allowed: boolean;
  /** False for a user without a (non-deactivated) membership: the queue answers 404, not 403. */
  isMember: boolean;
  role: string;
}

export interface CallContext {
  requestId?: string;
}

/** What automation needs of membership: who may manage a queue, and who belongs to an organization. */
export interface MembershipAccess {
  checkPermission(
    query: { userId: string; organizationId: string; permission: Permission; queueId: string },
    ctx?: CallContext,
  ): Promise<PermissionAnswer>;
  /** True when the user has a membership in the organization that is not deactivated. */
  isMember(userId: string, organizationId: string, ctx?: CallContext): Promise<boolean>;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The gRPC client of membership: a deadline, a breaker (an unreachable membership answers 503 at once), and
 * the kit's PermissionCache, which `membership.changed` evicts on every instance.
 */
export function membershipAccess(
  address: string,
  options: {
    identity: GrpcIdentity;
    deadlineMs: number;
    permissionCacheMs: number;
    bus: Parameters<typeof evictOnMembershipChanges>[1];
    logger: Logger;
    metrics?: Metrics;
  },
): MembershipAccess {
  const client = createMembershipClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    breaker: { resetTimeoutMs: 5_000 },
  });
  const cache = new PermissionCache(client, { ttlMs: options.permissionCacheMs });
  const eviction: MembershipEviction = evictOnMembershipChanges(cache, options.bus, options.logger);
  const context = (ctx?: CallContext) => (ctx?.requestId ? { requestId: ctx.requestId } : {});
  return {
    async checkPermission(query, ctx) {
      // Membership knows users by UUID; a token naming anything else belongs to nobody it knows.
      if (!UUID.test(query.userId)) return { allowed: false, isMember: false, role: "" };
      const answer = await cache.checkPermission(
        { user_id: query.userId, organization_id: query.organizationId, permission: query.permission, queue_id: query.queueId },
        context(ctx),
      );
      return { allowed: answer.allowed, isMember: answer.is_member, role: answer.role };
    },
    async isMember(userId, organizationId, ctx) {
      if (!UUID.test(userId)) return false;
      const roles = await cache.getRoles({ user_id: userId.toLowerCase(), organization_id: organizationId }, context(ctx));
      return roles.role !== "" && roles.status !== "deactivated";
    },
    async close() {
      await eviction.stop();
      client.close();
    },
  };
}
