import { type CallContext, MembershipPermissions, type PermissionAnswer, type PermissionQuery, type QueueReach } from "@docex/access";
import { type EventBus, type GrpcIdentity, type Logger, type Metrics, undefinedIfNotFound } from "@docex/kit";
import type { MembershipAccess } from "../domain/access.js";
import { isUuid } from "../domain/humanized-id.js";
import type { OrganizationRef } from "../domain/records.js";
import type { FieldRule } from "../domain/user-schema.js";

/** User schemas are not covered by membership.changed, so they are only kept briefly. */
class ShortLivedAnswers<T> {
  private readonly entries = new Map<string, { value: Promise<T>; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const value = load();
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    // A failure is not an answer: the next call asks again.
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

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
  private readonly fieldRules: ShortLivedAnswers<FieldRule[]>;

  constructor(address: string, options: MembershipAccessOptions) {
    this.permissions = MembershipPermissions.connect(address, {
      identity: options.identity,
      deadlineMs: options.deadlineMs,
      cacheMs: options.permissionCacheMs,
      bus: options.bus,
      logger: options.logger,
      metrics: options.metrics,
    });
    this.fieldRules = new ShortLivedAnswers<FieldRule[]>(options.userSchemaCacheMs);
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
    return this.fieldRules.get(key, async () => {
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
