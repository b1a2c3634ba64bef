import {
  evictOnMembershipChanges,
  type GrpcIdentity,
  type Logger,
  type MembershipEviction,
  type Metrics,
  PermissionCache,
} from "@docex/kit";
import { createMembershipClient } from "@docex/protos";
import { z } from "zod";
import type { PermissionSource } from "../domain/access.js";

export interface MembershipPermissionsOptions {
  /** This service's certificate, presented to the server (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  metrics?: Metrics;
  deadlineMs: number;
  /** How long an answer is reused; `membership.changed` evicts it sooner. 0 asks every time. */
  cacheMs: number;
  /** Where `membership.changed` arrives. */
  bus: Parameters<typeof evictOnMembershipChanges>[1];
  logger?: Logger;
}

export interface MembershipPermissions extends PermissionSource {
  close(): Promise<void>;
}

const uuid = z.guid();

/**
 * The gRPC client of membership (CheckPermission): a deadline, a breaker so that an unreachable membership
 * answers 503 at once (fail closed), and the kit's PermissionCache, evicted by `membership.changed`.
 */
export function membershipPermissions(address: string, options: MembershipPermissionsOptions): MembershipPermissions {
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
      if (!uuid.safeParse(query.userId).success) return { allowed: false, isMember: false, role: "" };
      const answer = await cache.checkPermission(
        { user_id: query.userId, organization_id: query.organizationId, permission: query.permission, queue_id: query.queueId },
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
