import type { EventBus } from "@docex/kit/bus";
import type { GrpcIdentity } from "@docex/kit/grpc";
import { isUuid } from "@docex/kit/ids";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import { createMembershipClient, type MembershipClient } from "@docex/protos";
import { evictOnMembershipChanges, type MembershipEviction, PermissionCache } from "./permission-cache.js";
import type { CallContext, MemberCheck, PermissionAnswer, PermissionQuery, PermissionSource, QueueReach } from "./rule.js";

export interface MembershipPermissionsOptions {
  /** This service's certificate, presented to the server (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  deadlineMs: number;
  /** How long an answer is reused; `membership.changed` evicts it sooner. 0 asks every time. */
  cacheMs: number;
  /** Where `membership.changed` arrives; without it answers live out their time. */
  bus?: Pick<EventBus, "broadcast">;
  logger?: Logger;
  metrics?: Metrics;
}

/**
 * The gRPC client of membership as every service uses it: a deadline, a breaker so that an unreachable
 * membership answers 503 at once instead of holding every request (access fails closed), and the
 * PermissionCache, which `membership.changed` evicts on every instance.
 */
export class MembershipPermissions implements PermissionSource, MemberCheck {
  private constructor(
    /** The connection itself, for the calls that are not about permissions (document's organizations, user schemas). */
    readonly client: MembershipClient,
    private readonly cache: PermissionCache,
    private readonly eviction: MembershipEviction | undefined,
  ) {}

  static connect(address: string, options: MembershipPermissionsOptions): MembershipPermissions {
    const client = createMembershipClient(address, options);
    const cache = new PermissionCache(client, { ttlMs: options.cacheMs });
    const eviction = options.bus ? evictOnMembershipChanges(cache, options.bus, options.logger) : undefined;
    return new MembershipPermissions(client, cache, eviction);
  }

  async checkPermission(query: PermissionQuery, ctx?: CallContext): Promise<PermissionAnswer> {
    // Membership knows users by UUID; a token naming anything else belongs to nobody it knows.
    if (!isUuid(query.userId)) return { allowed: false, isMember: false, role: "" };
    const answer = await this.cache.checkPermission(
      {
        user_id: query.userId,
        organization_id: query.organizationId,
        permission: query.permission,
        ...(query.queueId ? { queue_id: query.queueId } : {}),
      },
      ctx,
    );
    return { allowed: answer.allowed, isMember: answer.is_member, role: answer.role };
  }

  async isMember(userId: string, organizationId: string, ctx?: CallContext): Promise<boolean> {
    if (!isUuid(userId)) return false;
    const roles = await this.cache.getRoles({ user_id: userId.toLowerCase(), organization_id: organizationId }, ctx);
    return roles.role !== "" && roles.status !== "deactivated";
  }

  /**
   * The caller's role in the organization and the queues it covers (null: every queue); undefined when the user is
   * not an effective member. For lists that show only what a member may see.
   */
  async reachOf(userId: string, organizationId: string, ctx?: CallContext): Promise<QueueReach | undefined> {
    if (!isUuid(userId)) return undefined;
    const roles = await this.cache.getRoles({ user_id: userId.toLowerCase(), organization_id: organizationId }, ctx);
    if (roles.role === "" || roles.status === "deactivated") return undefined;
    return { role: roles.role, queueIds: roles.all_queues ? null : roles.queue_ids };
  }

  /** Opens the channel to membership and waits for its first answer (GrpcClient.warm). */
  warm(timeoutMs?: number): Promise<boolean> {
    return this.client.warm(timeoutMs);
  }

  async close(): Promise<void> {
    await this.eviction?.stop();
    this.client.close();
  }
}
