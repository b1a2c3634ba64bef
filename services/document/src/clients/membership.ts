import { type CallContext, MembershipPermissions, type PermissionAnswer, type PermissionQuery, type QueueReach } from "@docex/access";
import type { EventBus } from "@docex/kit/bus";
import { BoundedCache } from "@docex/kit/cache";
import { undefinedIfNotFound } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import type { MembershipAccess } from "../domain/access.js";
import { isUuid } from "../domain/humanized-id.js";
import type { OrganizationRef } from "../domain/records.js";
import type { FieldRule } from "../domain/user-schema.js";

export interface MembershipAccessOptions {
  /** This service's certificate, presented to the server (GRPC_TLS_DIR). */
  identity: GrpcIdentity;
  deadlineMs: number;
  /** How long a permission answer is reused; `membership.changed` evicts it sooner. 0 asks every time. */
  permissionCacheMs: number;
  /** How long a user's field rules are reused. 0 asks every time. */
  userSchemaCacheMs: number;
  /** The service's NATS connection, on which `membership.changed` evicts cached permissions. */
  bus: Pick<EventBus, "broadcast">;
  logger: Logger;
  metrics?: Metrics;
}

/**
 * Membership over gRPC: permissions through @docex/access (deadline, breaker, cache evicted by
 * membership.changed), and on the same connection the organizations of a user and a brief cache of user
 * schemas.
 */
export class MembershipAccessClient implements MembershipAccess {
  private readonly permissions: MembershipPermissions;
  /** User schemas are not covered by membership.changed, so they are only kept briefly. */
  private readonly fieldRules: BoundedCache<string, Promise<FieldRule[]>>;

  constructor(address: string, options: MembershipAccessOptions) {
    this.permissions = MembershipPermissions.connect(address, {
      identity: options.identity,
      deadlineMs: options.deadlineMs,
      cacheMs: options.permissionCacheMs,
      bus: options.bus,
      logger: options.logger,
      metrics: options.metrics,
    });
    this.fieldRules = new BoundedCache({ maxEntries: 10_000, ttlMs: options.userSchemaCacheMs });
  }

  checkPermission(query: PermissionQuery, ctx?: CallContext): Promise<PermissionAnswer> {
    return this.permissions.checkPermission(query, ctx);
  }

  reachOf(userId: string, organizationId: string, ctx?: CallContext): Promise<QueueReach | undefined> {
    return this.permissions.reachOf(userId, organizationId, ctx);
  }

  async organizationsOf(userId: string, ctx?: CallContext): Promise<OrganizationRef[]> {
    if (!isUuid(userId)) return [];
    const answer = await this.permissions.client.listOrganizationsOfUser({ user_id: userId }, ctx);
    return answer.organizations.map((organization) => ({
      id: organization.id,
      humanizedId: organization.humanized_id,
      name: organization.name,
    }));
  }

  async organization(ref: string, ctx?: CallContext): Promise<OrganizationRef | undefined> {
    const answer = await undefinedIfNotFound(this.permissions.client.getOrganization({ id_or_humanized: ref }, ctx));
    const organization = answer?.organization;
    return organization ? { id: organization.id, humanizedId: organization.humanized_id, name: organization.name } : undefined;
  }

  fieldRulesOf(query: { userId: string; organizationId: string; queueId: string }, ctx?: CallContext): Promise<FieldRule[]> {
    if (!isUuid(query.userId)) return Promise.resolve([]);
    const key = [query.userId, query.organizationId, query.queueId].join("|");
    return this.fieldRules.getOrSet(key, async () => {
      const answer = await this.permissions.client.getUserSchema(
        { user_id: query.userId, organization_id: query.organizationId, queue_id: query.queueId },
        ctx,
      );
      return answer.fields.map((field) => ({ key: field.key, hidden: field.hidden, readonly: field.readonly }));
    });
  }

  /** Opens the channel to membership and waits for its first answer. */
  warm(): Promise<boolean> {
    return this.permissions.warm();
  }

  close(): Promise<void> {
    return this.permissions.close();
  }
}
