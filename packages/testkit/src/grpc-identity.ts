import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SERVICE_NAMES } from "@docex/kit/config";
import { GrpcIdentity } from "@docex/kit/grpc";
import { ensureGrpcIdentityDirectory } from "@docex/private-ca";

/**
 * The service identities of this test process: a CA of its own (made when the test kit is first
 * imported) and a certificate for every service, plus `stranger`, a valid certificate no caller list names.
 * testServiceConfig points GRPC_TLS_DIR here, so every test runs its services with mutual TLS.
 */
export const TEST_GRPC_IDENTITIES: readonly string[] = [...new Set([...SERVICE_NAMES, "gateway", "extraction", "stranger"])];

const dir = mkdtempSync(path.join(os.tmpdir(), "docex-grpc-identity-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
await ensureGrpcIdentityDirectory(dir, TEST_GRPC_IDENTITIES);

/** This process's GRPC_TLS_DIR (ca.crt, <service>.crt, <service>.key). */
export function testGrpcTlsDir(): string {
  return dir;
}

/** The identity of `service` under this process's CA: a test double serves as it, a test client calls as it. */
export function testGrpcIdentity(service: string): GrpcIdentity {
  return GrpcIdentity.fromDirectory(service, dir);
}

/**
 * A client of a service that calls each method as a service allowed to call it (the first of `callers[Method]`),
 * as the real callers would: one underlying client per caller identity, made on first use. For tests that call
 * every method of a service; the server's caller check applies unchanged.
 */
export function clientAsAllowedCallers<C extends { close(): void }>(
  callers: Readonly<Record<string, readonly string[]>>,
  create: (identity: GrpcIdentity) => C,
): C {
  const clients = new Map<string, C>();
  const clientOf = (caller: string): C => {
    let client = clients.get(caller);
    if (!client) {
      client = create(testGrpcIdentity(caller));
      clients.set(caller, client);
    }
    return client;
  };
  return new Proxy({} as C, {
    get(_target, property) {
      if (property === "close")
        return () => {
          for (const client of clients.values()) client.close();
        };
      if (typeof property !== "string" || property === "then") return undefined;
      const method = property.charAt(0).toUpperCase() + property.slice(1);
      const caller = callers[method]?.[0];
      if (!caller) throw new Error(`no service may call ${method}`);
      const client = clientOf(caller) as Record<string, unknown>;
      return (client[property] as (...args: unknown[]) => unknown).bind(client);
    },
  });
}
