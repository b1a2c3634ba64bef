import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { databaseUrl } from "../src/db/database.js";
import { createLogger } from "../src/logger.js";

// The kit cannot use @docex/testkit (which is built on the kit), so its tests carry these few helpers.

export const silentLogger = createLogger("kit-test", "silent");
export const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

export function uniqueName(label: string): string {
  return `docex_test_kit_${label}_${randomBytes(4).toString("hex")}`;
}

export async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, "postgres") });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => client.end());
}

export function baseUrlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
