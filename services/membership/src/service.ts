import { eventConsumer } from "@docex/domain/event-consumer";
import { removalSubscription } from "@docex/domain/removals";
import { serviceConfigSchema } from "@docex/kit/config";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { membershipService } from "@docex/protos";
import { z } from "zod";
import { authUserDirectory } from "./clients/auth.js";
import { documentPort } from "./clients/document.js";
import type { DocumentPort } from "./domain/document-port.js";
import { InvitationAcceptance } from "./domain/invitation-acceptance.js";
import { MemberListing } from "./domain/member-listing.js";
import { MemberProfiles, type MemberProfilesOptions } from "./domain/member-profiles.js";
import { Organizations } from "./domain/organizations.js";
import { PersonalDataErasure } from "./domain/personal-data-erasure.js";
import { RoleAssignment } from "./domain/role-assignment.js";
import type { UserDirectory } from "./domain/user-directory.js";
import { UserSchemas } from "./domain/user-schemas.js";
import { USER_ONBOARDED_CONSUMER, userOnboardedSubscription } from "./events/user-onboarded.js";
import { membershipCallers, membershipHandlers } from "./grpc/membership-handlers.js";
import { membershipHttp } from "./http/routes.js";
import { MembershipStore } from "./store/membership-store.js";
import { migrations } from "./store/migrations.js";

export const configSchema = serviceConfigSchema("membership").extend({
  /** How long an invitation can be accepted (its mailed token expires with it); fractions of a day allowed. */
  INVITATION_TTL_DAYS: z.coerce.number().positive().max(365).default(7),
  /** Pending (unaccepted, unexpired) invitations per organization; more answer 409. */
  INVITATION_MAX_PENDING: z.coerce.number().int().min(1).default(50),
  /** Invitations sent per organization in any 24 hours; more answer 429 with Retry-After. */
  INVITATION_MAX_PER_DAY: z.coerce.number().int().min(1).default(100),
});
export type MembershipConfig = z.infer<typeof configSchema>;

/** Erases the person's memberships in every organization when they erased their account (DELETE /auth/me). */
const USER_ERASED_CONSUMER = "membership__user_personal_data_erased";

export interface MembershipServiceOptions {
  logger?: Logger;
  /** Replaces the gRPC client of auth. */
  userDirectory?: UserDirectory;
  /** Replaces the gRPC client of document (which queues exist). */
  queues?: DocumentPort;
  /** How often copies of auth's user data are refreshed. */
  profiles?: MemberProfilesOptions;
}

/** Builds the membership service from its configuration and starts it; the handle stops it gracefully. */
export async function startMembershipService(config: MembershipConfig, options: MembershipServiceOptions = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("membership", config, { migrations, logger: options.logger });
  const directory = options.userDirectory ?? authUserDirectory(config.AUTH_GRPC_ADDR, infra.grpcIdentity, infra.metrics);
  const documents = options.queues
    ? undefined
    : documentPort(config.DOCUMENT_GRPC_ADDR, { identity: infra.grpcIdentity, deadlineMs: 2_000, metrics: infra.metrics });
  const queues = options.queues ?? documents!;
  const closeOnFailure = async () => {
    directory.close();
    documents?.close();
  };
  return infra.startOrClose(closeOnFailure, async () => {
    const store = new MembershipStore(infra.sql, infra.events);
    const organizations = new Organizations(store);
    const profiles = new MemberProfiles(store, directory, infra.logger, options.profiles);
    const userSchemas = new UserSchemas(store, queues);
    const erasure = new PersonalDataErasure(store);
    const domain = {
      organizations,
      listing: new MemberListing(store, profiles),
      roleAssignment: new RoleAssignment(store, directory, queues, {
        ttlDays: config.INVITATION_TTL_DAYS,
        maxPending: config.INVITATION_MAX_PENDING,
        maxPerDay: config.INVITATION_MAX_PER_DAY,
      }),
      userSchemas,
      erasure,
    };

    const http = membershipHttp(domain, infra.verifier);
    const app = infra.httpApp(http);
    const grpc = infra.grpcServer();
    grpc.addService(
      membershipService.definition,
      membershipService.serviceName,
      membershipHandlers({ store, organizations, userSchemas, invitations: new InvitationAcceptance(store) }),
      membershipCallers,
    );

    return infra.serve({
      app,
      grpc,
      subscriptions: [
        userOnboardedSubscription({ store, organizations, logger: infra.logger }, USER_ONBOARDED_CONSUMER),
        removalSubscription("membership__queue_deleted", "queue.deleted", (event) => store.forgetQueue(event.data.queue_id)),
        eventConsumer(USER_ERASED_CONSUMER, "user.personal_data_erased", (event) => erasure.onUserErased(event, USER_ERASED_CONSUMER)),
      ],
      onStop: async () => {
        directory.close();
        documents?.close();
      },
    });
  });
}
