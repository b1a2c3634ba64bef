import type { Metrics } from "@docex/kit";
import { createMembershipClient } from "@docex/protos";

/** What auth needs of membership: the organization of a user who finished self-registration. */
export interface MembershipOrganizations {
  /** Idempotent per owner: a repeated call answers the organization created the first time. */
  createForOnboarding(input: { ownerUserId: string; name: string }, ctx: { requestId?: string }): Promise<{ organizationId: string }>;
  close(): void;
}

/**
 * The key membership deduplicates on. Its consumer of `auth.user_onboarded` must use the same key,
 * so that the call and the event create one organization between them.
 */
export function onboardingIdempotencyKey(userId: string): string {
  return `onboarding:${userId}`;
}

/** The gRPC client of membership: a deadline well inside a login's patience and a circuit breaker. */
export function membershipOrganizations(address: string, metrics: Metrics): MembershipOrganizations {
  const client = createMembershipClient(address, { deadlineMs: 3_000, metrics, breaker: { resetTimeoutMs: 10_000 } });
  return {
    async createForOnboarding({ ownerUserId, name }, ctx) {
      const response = await client.createOrganization(
        { name, owner_user_id: ownerUserId, idempotency_key: onboardingIdempotencyKey(ownerUserId) },
        ctx.requestId ? { requestId: ctx.requestId } : {},
      );
      if (!response.organization) throw new Error("membership answered CreateOrganization without an organization");
      return { organizationId: response.organization.id };
    },
    close: () => client.close(),
  };
}
