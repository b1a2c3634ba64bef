import {
  evictOnMembershipChanges,
  type GrpcIdentity,
  type Logger,
  type MembershipEviction,
  type Metrics,
  NotFoundError,
  PermissionCache,
} from "@docex/kit";
import { createMembershipClient } from "@docex/protos";
import { isUuid } from "../domain/humanized-id.js";
import type { OrganizationRef } from "../domain/records.js";
import type { FieldRule } from "../domain/user-schema.js";

/** The permission names of membership.proto's CheckPermission that this service asks about. */
export type Permission = "document.read" | "document.edit" | "document.approve" | "workspace.create" | "queue.manage";

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
  queueId?: string;
}

export interface CallContext {
  requestId?: string;
}

/** What the document service needs of membership: who may do what, which organizations a user is in, field rules. */
export interface MembershipAccess {
  checkPermission(query: PermissionQuery, ctx?: CallContext): Promise<PermissionAnswer>;
  organizationsOf(userId: string, ctx?: CallContext): Promise<OrganizationRef[]>;
  /** An organization by UUID or humanized id, whoever asks; undefined when there is none. */
  organization(ref: string, ctx?: CallContext): Promise<OrganizationRef | undefined>;
  fieldRulesOf(query: { userId: string; organizationId: string; queueId: string }, ctx?: CallContext): Promise<FieldRule[]>;
  close(): Promise<void>;
}

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
  bus: Parameters<typeof evictOnMembershipChanges>[1];
  logger: Logger;
  metrics?: Metrics;
}

/**
 * The gRPC client of membership: a deadline, a breaker so that an unreachable membership answers 503 at
 * once instead of holding every request, the kit's PermissionCache (evicted by membership.changed) and a
 * brief cache of user schemas.
 */
export function membershipAccess(address: string, options: MembershipAccessOptions): MembershipAccess {
  const client = createMembershipClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    breaker: { resetTimeoutMs: 5_000 },
  });
  const permissions = new PermissionCache(client, { ttlMs: options.permissionCacheMs });
  const eviction: MembershipEviction = evictOnMembershipChanges(permissions, options.bus, options.logger);
  const fieldRules = new ShortLivedAnswers<FieldRule[]>(options.userSchemaCacheMs);
  const context = (ctx?: CallContext) => (ctx?.requestId ? { requestId: ctx.requestId } : {});
  return {
    async checkPermission(query, ctx) {
      // Membership knows users by UUID; a token naming anything else belongs to nobody it knows.
      if (!isUuid(query.userId)) return { allowed: false, isMember: false, role: "" };
      const answer = await permissions.checkPermission(
        {
          user_id: query.userId,
          organization_id: query.organizationId,
          permission: query.permission,
          ...(query.queueId ? { queue_id: query.queueId } : {}),
        },
        context(ctx),
      );
      return { allowed: answer.allowed, isMember: answer.is_member, role: answer.role };
    },
    async organizationsOf(userId, ctx) {
      if (!isUuid(userId)) return [];
      const answer = await client.listOrganizationsOfUser({ user_id: userId }, context(ctx));
      return answer.organizations.map((organization) => ({
        id: organization.id,
        humanizedId: organization.humanized_id,
        name: organization.name,
      }));
    },
    async organization(ref, ctx) {
      try {
        const { organization } = await client.getOrganization({ id_or_humanized: ref }, context(ctx));
        return organization ? { id: organization.id, humanizedId: organization.humanized_id, name: organization.name } : undefined;
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
    fieldRulesOf(query, ctx) {
      if (!isUuid(query.userId)) return Promise.resolve([]);
      const key = [query.userId, query.organizationId, query.queueId].join("|");
      return fieldRules.get(key, async () => {
        const answer = await client.getUserSchema(
          { user_id: query.userId, organization_id: query.organizationId, queue_id: query.queueId },
          context(ctx),
        );
        return answer.fields.map((field) => ({ key: field.key, hidden: field.hidden, readonly: field.readonly }));
      });
    },
    async close() {
      await eviction.stop();
      client.close();
    },
  };
}
