import type { EventBus } from "@docex/kit/bus";
import { BoundedCache } from "@docex/kit/cache";
import type { CallContext } from "@docex/kit/grpc";
import type { Logger } from "@docex/kit/logger";
import { traceEvent } from "@docex/kit/tracing";

/*
 * The membership service decides roles and permissions; every other service asks it over gRPC and keeps
 * the answers here for a short while. The shapes below are those of membership.proto (GetRoles,
 * CheckPermission), so the generated membership client fits `MembershipAnswers` as it is.
 */

export interface CheckPermissionQuery {
  user_id: string;
  /** UUID, not a humanized id. */
  organization_id: string;
  /** e.g. "document.read", "queue.manage"; see membership.proto. */
  permission: string;
  queue_id?: string;
}

export interface CheckPermissionAnswer {
  allowed: boolean;
  /** False for a user without a membership (or with a deactivated one): answer 404, not 403. */
  is_member: boolean;
  role: string;
}

export interface GetRolesQuery {
  user_id: string;
  organization_id: string;
}

export interface RolesAnswer {
  /** Empty when the user is not a member. */
  role: string;
  queue_ids: string[];
  all_queues: boolean;
  /** "active" | "deactivated"; empty when not a member (a pending invitation is none). */
  status: string;
}

/** Where answers come from: the membership gRPC client, or anything shaped like it. */
export interface MembershipAnswers {
  checkPermission(query: CheckPermissionQuery, ctx?: CallContext): Promise<CheckPermissionAnswer>;
  getRoles(query: GetRolesQuery, ctx?: CallContext): Promise<RolesAnswer>;
}

export interface PermissionCacheOptions {
  /** How long an answer is reused; a `membership.changed` event evicts it sooner. */
  ttlMs?: number;
  /** Least recently used answers go first beyond this many. */
  maxEntries?: number;
  now?: () => number;
}

/** Whose answers to forget: one user in one organization, everything of a user, or of an organization. */
export interface EvictionScope {
  userId?: string;
  organizationId?: string;
}

export const MEMBERSHIP_CHANGED_SUBJECT = "docex.membership.changed";

/**
 * Answers of membership's CheckPermission and GetRoles, kept `ttlMs` (30 s) and at most `maxEntries`.
 * "Not a member" is cached like any other answer; failures are not. Concurrent identical questions share
 * one call. An answer that was in flight while an eviction happened is returned but not kept, so an
 * eviction is never undone by a slow call that started before it.
 */
export class PermissionCache {
  private readonly entries: BoundedCache<string, CheckPermissionAnswer | RolesAnswer>;
  private readonly inFlight = new Map<string, Promise<CheckPermissionAnswer | RolesAnswer>>();
  /** Bumped by every eviction; an answer fetched across a bump is not stored. */
  private generation = 0;

  constructor(
    private readonly source: MembershipAnswers,
    options: PermissionCacheOptions = {},
  ) {
    this.entries = new BoundedCache({ maxEntries: options.maxEntries ?? 10_000, ttlMs: options.ttlMs ?? 30_000, now: options.now });
  }

  checkPermission(query: CheckPermissionQuery, ctx: CallContext = {}): Promise<CheckPermissionAnswer> {
    const key = ["permission", query.organization_id, query.user_id, query.permission, query.queue_id ?? ""].join("\u0000");
    return this.answer(key, () => this.source.checkPermission(query, ctx)) as Promise<CheckPermissionAnswer>;
  }

  getRoles(query: GetRolesQuery, ctx: CallContext = {}): Promise<RolesAnswer> {
    const key = ["roles", query.organization_id, query.user_id].join("\u0000");
    return this.answer(key, () => this.source.getRoles(query, ctx)) as Promise<RolesAnswer>;
  }

  /** Forgets answers about a user, an organization, or a user in an organization; with neither, everything. */
  evict(scope: EvictionScope = {}): void {
    this.generation += 1;
    if (scope.userId === undefined && scope.organizationId === undefined) {
      this.entries.clear();
      this.inFlight.clear();
      return;
    }
    // Keys start with the kind, then the organization and the user.
    const matches = (key: string) => {
      const [, organizationId = "", userId = ""] = key.split("\u0000");
      return (
        (scope.userId === undefined || userId === scope.userId) &&
        (scope.organizationId === undefined || organizationId === scope.organizationId)
      );
    };
    this.entries.deleteWhere(matches);
    for (const key of this.inFlight.keys()) if (matches(key)) this.inFlight.delete(key);
  }

  clear(): void {
    this.evict();
  }

  get size(): number {
    return this.entries.size;
  }

  private async answer(
    key: string,
    fetch: () => Promise<CheckPermissionAnswer | RolesAnswer>,
  ): Promise<CheckPermissionAnswer | RolesAnswer> {
    const kind = key.slice(0, key.indexOf("\u0000"));
    const held = this.entries.holds(key);
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      traceEvent("permission cache hit", { "docex.permission_cache.kind": kind });
      return cached;
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      traceEvent("permission cache miss", { "docex.permission_cache.kind": kind, "docex.permission_cache.shared_call": true });
      return pending;
    }
    traceEvent("permission cache miss", { "docex.permission_cache.kind": kind, "docex.permission_cache.expired": held });

    const generation = this.generation;
    const call = fetch().then(
      (value) => {
        if (this.inFlight.get(key) === call) this.inFlight.delete(key);
        if (generation === this.generation) this.entries.set(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.inFlight.get(key) === call) this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, call);
    return call;
  }
}

/** Who the event names: `data.user_id` and `data.organization_id` of a `membership.changed` envelope. */
function scopeOfMembershipChange(payload: unknown): EvictionScope | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const { data, organization_id: envelopeOrganization } = payload as { data?: unknown; organization_id?: unknown };
  if (typeof data !== "object" || data === null) return undefined;
  const { user_id: userId, organization_id: organizationId } = data as { user_id?: unknown; organization_id?: unknown };
  const organization = typeof organizationId === "string" ? organizationId : envelopeOrganization;
  if (typeof userId !== "string" || typeof organization !== "string") return undefined;
  return { userId, organizationId: organization };
}

export interface MembershipEviction {
  stop(): Promise<void>;
}

/**
 * Evicts `cache` entries as `membership.changed` events are published. Every instance of a service
 * needs every event, so this is a plain NATS subscription on the subject (JetStream publishes reach
 * core subscribers too) rather than a durable consumer that instances would share. Events published
 * while the connection is down are missed, so the whole cache is dropped on reconnect; an event that
 * cannot be read drops it as well.
 */
export function evictOnMembershipChanges(
  cache: Pick<PermissionCache, "evict">,
  bus: Pick<EventBus, "broadcast">,
  logger?: Logger,
): MembershipEviction {
  const subscription = bus.broadcast(
    MEMBERSHIP_CHANGED_SUBJECT,
    (payload, subject) => {
      const scope = scopeOfMembershipChange(payload);
      if (!scope) logger?.warn({ subject }, "unreadable membership.changed; permission cache dropped");
      cache.evict(scope ?? {});
    },
    () => cache.evict(),
  );
  return {
    async stop() {
      subscription.stop();
    },
  };
}
