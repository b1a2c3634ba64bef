import { NotFoundError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import { createMembershipClient } from "@docex/protos";
import type { MembershipOrganizations } from "../domain/membership-organizations.js";

/**
 * The key membership deduplicates on. Its consumer of `auth.user_onboarded` must use the same key,
 * so that the call and the event create one organization between them.
 */
export function onboardingIdempotencyKey(userId: string): string {
  return `onboarding:${userId}`;
}

/** The gRPC client of membership: a deadline well inside a login's patience and a circuit breaker. */
export function membershipOrganizations(address: string, identity: GrpcIdentity, metrics: Metrics): MembershipOrganizations {
  const client = createMembershipClient(address, {
    identity,
    deadlineMs: 3_000,
    metrics,
    breaker: { resetTimeoutMs: 10_000 },
  });
  return {
    async createForOnboarding({ ownerUserId, name }, ctx) {
      const response = await client.createOrganization(
        { name, owner_user_id: ownerUserId, idempotency_key: onboardingIdempotencyKey(ownerUserId) },
        ctx,
      );
      if (!response.organization) throw new Error("membership answered CreateOrganization without an organization");
      return { organizationId: response.organization.id };
    },
    async acceptInvitation({ organizationId, userId, email, name }, ctx) {
      try {
        await client.acceptInvitation({ organization_id: organizationId, user_id: userId, email, name }, ctx);
        return true;
      } catch (error) {
        if (error instanceof NotFoundError) return false;
        throw error;
      }
    },
    close: () => client.close(),
  };
}
