import { acceptInvitations } from "@docex/access/testing";
import { type MembershipServiceOptions, configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import { dropDatabase, type TestIssuer, testServiceConfig } from "@docex/testkit";
import type { MembershipBackend } from "./harness.js";

type UserDirectory = NonNullable<MembershipServiceOptions["userDirectory"]>;

/** The membership service in-process on real Postgres and NATS, its calls to auth answered by `directory`. */
/** `documentAddress`: where membership finds the document service (ResolveEntity of a user schema's queue). */
export async function startRealMembership(
  issuer: TestIssuer,
  directory: UserDirectory,
  documentAddress?: string,
): Promise<MembershipBackend & { url: string; accept(organizationId: string, userId: string, email: string): Promise<void> }> {
  const config = testServiceConfig(
    "membership",
    { AUTH_JWKS_URL: issuer.jwksUri, ...(documentAddress ? { DOCUMENT_GRPC_ADDR: documentAddress } : {}) },
    membershipConfigSchema,
  );
  const running = await startMembershipService(config, { userDirectory: directory });
  const address = `127.0.0.1:${running.grpcPort}`;
  return {
    address,
    url: `http://127.0.0.1:${running.httpPort}`,
    // The invitee accepts, as auth relays it when they use the mailed token.
    accept: (organizationId, userId, email) => acceptInvitations(address, organizationId, [{ userId, email }]),
    stop: async () => {
      await running.stop();
      await dropDatabase(config.DATABASE_NAME);
    },
  };
}
