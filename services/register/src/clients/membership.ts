import {
  evictOnMembershipChanges,
  type GrpcIdentity,
  type Logger,
  type MembershipEviction,
  type Metrics,
  PermissionCache,
} from "@docex/kit";
import { createMembershipClient } from "@docex/protos";
import type { PermissionSource } from "../domain/access.js";

export interface MembershipPermissionsOptions {
  /** This service's certificate, presented to the server (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  metrics?: Metrics;
  deadlineMs: number;
  /** How long an answer is reused; `membership.changed` evicts it sooner. */
  cacheMs: number;
  /** Where `membership.changed` arrives; without it answers live out their time. */
  bus?: Parameters<typeof evictOnMembershipChanges>[1];
  logger?: Logger;
}

export interface MembershipPermissions extends PermissionSource {
  close(): Promise<void>;
}

/**
 * The gRPC client of membership (CheckPermission): a deadline, a breaker, and the kit's PermissionCache,
 * evicted by `membership.changed`, so that paging through a register asks membership once.
 */
export function membershipPermissions(address: string, options: MembershipPermissionsOptions): MembershipPermissions {
  const client = createMembershipClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    breaker: { resetTimeoutMs: 5_000 },
  });
  const cache = new PermissionCache(client, { ttlMs: options.cacheMs });
  const eviction: MembershipEviction | undefined = options.bus ? evictOnMembershipChanges(cache, options.bus, options.logger) : undefined;
  return {
    async checkPermission(query, ctx) {
      const answer = await cache.checkPermission(
        { user_id: query.userId, organization_id: query.organizationId, permission: query.permission, queue_id: query.queueId },
        ctx?.requestId ? { requestId: ctx.requestId } : {},
      );
      return { allowed: answer.allowed, isMember: answer.is_member, role: answer.role };
    },
    async close() {
      await eviction?.stop();
      client.close();
    },
  };
}
