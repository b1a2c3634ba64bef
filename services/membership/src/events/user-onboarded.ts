import { EventValidationError, eventSubject, parseEvent } from "@docex/events";
import type { SubscriptionOptions } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import type { Organizations } from "../domain/organizations.js";
import type { MembershipStore } from "../store/membership-store.js";

export const USER_ONBOARDED_CONSUMER = "membership__auth_user_onboarded";

/**
 * The key auth sends with CreateOrganization when onboarding finishes. The consumer uses the same key,
 * so auth's call and this event create one organization between them, whichever comes first.
 */
export function onboardingIdempotencyKey(userId: string): string {
  return `onboarding:${userId}`;
}

/** The organization is named after the company; without one, after the owner's email (as auth names it). */
export function onboardingOrganizationName(company: string | null, email: string): string {
  return company?.trim() || email;
}

/**
 * `auth.user_onboarded`: the new user owns a new organization named by their company. Self-registration
 * and BOOTSTRAP_OWNER_* (auth publishes the event with company "bootstrap") both arrive here. The event
 * id is claimed in the transaction that creates the organization, so a redelivered event creates nothing.
 */
export function userOnboardedSubscription(
  deps: { store: MembershipStore; organizations: Organizations; logger: Logger },
  durable = USER_ONBOARDED_CONSUMER,
): SubscriptionOptions {
  return {
    durable,
    subject: eventSubject("auth.user_onboarded"),
    handler: async (payload, message) => {
      let event: ReturnType<typeof parseEvent<"auth.user_onboarded">>;
      try {
        event = parseEvent(payload, "auth.user_onboarded");
      } catch (error) {
        // It will not become valid by retrying; say so loudly and move on.
        if (!(error instanceof EventValidationError)) throw error;
        deps.logger.error({ err: error, msg_id: message.msgId }, "auth.user_onboarded ignored: invalid event");
        return;
      }
      const requestId = event.request_id ?? message.requestId;
      const { data } = event;
      const ctx = { ...(requestId ? { requestId } : {}), actorUserId: data.user_id };
      await deps.store.transaction(async (tx) => {
        if (!(await deps.store.claimEvent(tx, USER_ONBOARDED_CONSUMER, event.id))) return;
        await deps.store.profiles.saveProfile(tx, { userId: data.user_id, email: data.email, refreshed: false });
        const { organization, created } = await deps.organizations.createIn(
          tx,
          {
            name: onboardingOrganizationName(data.company, data.email),
            ownerUserId: data.user_id,
            idempotencyKey: onboardingIdempotencyKey(data.user_id),
          },
          ctx,
        );
        deps.logger.info(
          { organization_id: organization.id, user_id: data.user_id, created, request_id: requestId },
          "onboarding organization",
        );
      });
    },
  };
}
