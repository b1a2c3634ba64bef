import { NotFoundError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Logger } from "@docex/kit/logger";
import type { Metrics } from "@docex/kit/metrics";
import { createRegisterClient } from "@docex/protos";
import { type RegisterLookup, RegisterUnavailableError } from "../domain/register-lookup.js";

/**
 * The gRPC client of the register service, behind a deadline and a breaker: a rule run never waits long on
 * a register, and every failure other than "no such register" is RegisterUnavailableError, which callers
 * treat as "cannot decide".
 */
export function registerLookup(
  address: string,
  options: { identity: GrpcIdentity; deadlineMs: number; metrics?: Metrics; logger: Logger },
): RegisterLookup {
  const client = createRegisterClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    metrics: options.metrics,
    breaker: { resetTimeoutMs: 10_000, volumeThreshold: 3 },
  });
  return {
    async lookup(registerId, organizationId, values, ctx) {
      try {
        const answer = await client.lookupItems({ register_id: registerId, values, organization_id: organizationId }, ctx);
        return { kind: "found", values: new Set(answer.items.map((item) => item.value)) };
      } catch (error) {
        if (error instanceof NotFoundError) return { kind: "no_such_register" };
        options.logger.warn({ err: error, register_id: registerId }, "register lookup failed");
        throw new RegisterUnavailableError(error);
      }
    },
    close: () => client.close(),
  };
}
