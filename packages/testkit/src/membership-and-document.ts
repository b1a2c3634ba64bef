import type { RunningService } from "@docex/kit/runtime";
import type { z } from "zod";
import { dropDatabase, testServiceConfig } from "./infra.js";
import type { TestIssuer } from "./issuer.js";
import { freePort } from "./ports.js";

/**
 * How a test starts one service in-process: its configuration schema and its start function. The test kit cannot
 * import the services (their tests import the kit), so a suite hands them in.
 */
export interface InProcessService<S extends z.ZodType> {
  configSchema: S;
  start(config: z.output<S>): Promise<RunningService>;
}

export interface StartedService {
  service: RunningService;
  database: string;
}

/**
 * The real membership and document services in-process on real Postgres and NATS, in this test process's event
 * namespace, trusting `issuer`'s tokens; each has a database of its own (the caller stops the services and drops
 * the databases). Membership asks the document service whether the queues it is told of exist, and document asks
 * membership who may do what: document's gRPC port is chosen first so that each can name the other.
 * `document` adds settings of the document service (AUTOMATION_GRPC_ADDR, caches).
 */
export async function startMembershipAndDocument<M extends z.ZodType, D extends z.ZodType>(
  services: { membership: InProcessService<M>; document: InProcessService<D> },
  options: { issuer: TestIssuer; document?: Record<string, string | number> },
): Promise<{ membership: StartedService; document: StartedService }> {
  const auth = { AUTH_JWKS_URL: options.issuer.jwksUri, JWT_ISSUER: options.issuer.issuer, JWT_AUDIENCE: options.issuer.audience };
  const documentGrpcPort = await freePort();
  const membershipConfig = testServiceConfig(
    "membership",
    { ...auth, DOCUMENT_GRPC_ADDR: `127.0.0.1:${documentGrpcPort}` },
    services.membership.configSchema,
  );
  const membershipDatabase = (membershipConfig as { DATABASE_NAME: string }).DATABASE_NAME;
  const membership = await services.membership.start(membershipConfig);
  try {
    const documentConfig = testServiceConfig(
      "document",
      { ...auth, GRPC_PORT: documentGrpcPort, MEMBERSHIP_GRPC_ADDR: `127.0.0.1:${membership.grpcPort}`, ...options.document },
      services.document.configSchema,
    );
    const document = await services.document.start(documentConfig);
    return {
      membership: { service: membership, database: membershipDatabase },
      document: { service: document, database: (documentConfig as { DATABASE_NAME: string }).DATABASE_NAME },
    };
  } catch (error) {
    await membership.stop().catch(() => undefined);
    await dropDatabase(membershipDatabase).catch(() => undefined);
    throw error;
  }
}
