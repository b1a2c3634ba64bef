import {
  evictOnMembershipChanges,
  type GrpcIdentity,
  type Logger,
  type MembershipEviction,
  type Metrics,
  PermissionCache,
} from "@docex/kit";
import { createMembershipClient } from "@docex/protos";
import type { CallContext } from "./document.js";

/** The permissions of membership.proto's CheckPermission that this service asks about. */
export type Permission = "document.read" | "queue.manage" | "signing_key.manage";

export interface PermissionAnswer {
  allowed: boolean;
  /** False for a user without a (non-deactivated) membership: the resource answers 404, not 403. */
  isMember: boolean;
  role: string;
}

export interface PermissionQuery {
  userId: string;
  organizationId: string;
  permission: Permission;
  queueId?: string | null;
}

export interface PermissionSource {
  checkPermission(query: PermissionQuery, ctx?: CallContext): Promise<PermissionAnswer>;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * membership over gRPC: a deadline, a breaker (an unreachable membership answers 503 at once: access fails
 * closed), and the kit's PermissionCache, which `membership.changed` evicts on every instance.
 */
export function membershipPermissions(
  address: string,
  options: {
    identity: GrpcIdentity;
    deadlineMs: number;
    cacheMs: number;
    bus: Parameters<typeof evictOnMembershipChanges>[1];
    logger: Logger;
    metrics?: Metrics;
  },
): PermissionSource {
  const client = createMembershipClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    breaker: { resetTimeoutMs: 5_000 },
  });
  const cache = new PermissionCache(client, { ttlMs: options.cacheMs });
  const eviction: MembershipEviction = evictOnMembershipChanges(cache, options.bus, options.logger);
  return {
    async checkPermission(query, ctx) {
      // Membership knows users by UUID; a token naming anything else belongs to nobody it knows.
      if (!UUID.test(query.userId)) return { allowed: false, isMember: false, role: "" };
      const answer = await cache.checkPermission(
        {
          user_id: query.userId,
          organization_id: query.organizationId,
          permission: query.permission,
          ...(query.queueId ? { queue_id: query.queueId } : {}),
        },
        ctx?.requestId ? { requestId: ctx.requestId } : {},
      );
      return { allowed: answer.allowed, isMember: answer.is_member, role: answer.role };
    },
    async close() {
      await eviction.stop();
      client.close();
    },
  };
}
