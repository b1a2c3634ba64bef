import { connectInfrastructure, createHttpApp, GrpcServer, type Logger, type RunningService, serve, serviceConfigSchema } from "@docex/kit";
import { membershipService } from "@docex/protos";
import type { z } from "zod";
import { authUserDirectory, type UserDirectory } from "./clients/auth.js";
import { MemberListing } from "./domain/member-listing.js";
import { MemberProfiles, type MemberProfilesOptions } from "./domain/member-profiles.js";
import { Organizations } from "./domain/organizations.js";
import { RoleAssignment } from "./domain/role-assignment.js";
import { UserSchemas } from "./domain/user-schemas.js";
import { USER_ONBOARDED_CONSUMER, userOnboardedSubscription } from "./events/user-onboarded.js";
import { membershipHandlers } from "./grpc/membership-handlers.js";
import { membershipHttp } from "./http/routes.js";
import { MembershipStore } from "./store/membership-store.js";
import { migrations } from "./store/migrations.js";

export const configSchema = serviceConfigSchema("membership");
export type MembershipConfig = z.infer<typeof configSchema>;

export interface MembershipServiceOptions {
  logger?: Logger;
  /** Replaces the gRPC client of auth. */
  userDirectory?: UserDirectory;
  /** How often copies of auth's user data are refreshed. */
  profiles?: MemberProfilesOptions;
}

/** Builds the membership service from its configuration and starts it; the handle stops it gracefully. */
export async function startMembershipService(config: MembershipConfig, options: MembershipServiceOptions = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("membership", config, { migrations, logger: options.logger });
  const directory = options.userDirectory ?? authUserDirectory(config.AUTH_GRPC_ADDR, infra.metrics);
  try {
    const store = new MembershipStore(infra.sequelize, infra.outbox);
    const organizations = new Organizations(store);
    const profiles = new MemberProfiles(store, directory, infra.logger, options.profiles);
    const userSchemas = new UserSchemas(store);
    const domain = {
      organizations,
      listing: new MemberListing(store, profiles),
      roleAssignment: new RoleAssignment(store, directory),
      userSchemas,
    };

    const http = membershipHttp(domain, infra.verifier);
    const app = createHttpApp({
      logger: infra.logger,
      metrics: infra.metrics,
      readiness: infra.readiness,
      routes: http.routes,
      api: http.api,
    });
    const grpc = new GrpcServer(infra.logger, infra.metrics);
    grpc.addService(membershipService.definition, membershipService.serviceName, membershipHandlers({ store, organizations, userSchemas }));

    return await serve(infra, {
      app,
      grpc,
      subscriptions: [userOnboardedSubscription({ store, organizations, logger: infra.logger }, USER_ONBOARDED_CONSUMER)],
      onStop: async () => directory.close(),
    });
  } catch (error) {
    directory.close();
    await infra.bus.close();
    await infra.sequelize.close();
    throw error;
  }
}
