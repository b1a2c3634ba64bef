import { randomBytes } from "node:crypto";
import { type ServiceName, serviceConfigSchema } from "@docex/kit/config";
import { databaseUrl } from "@docex/kit/db";
import pg from "pg";
import type { z } from "zod";
import { testGrpcTlsDir } from "./grpc-identity.js";

/** The Postgres server tests use: `DATABASE_URL`, else the machine's server on 127.0.0.1. */
export function testDatabaseServerUrl(): string {
  return process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

export function testNatsUrl(): string {
  return process.env.NATS_URL ?? "nats://127.0.0.1:4222";
}

const runId = randomBytes(4).toString("hex");

/**
 * The JetStream namespace of this test process: its own stream and subject prefix, so test
 * runs (and a developer's stack) never consume each other's events. Removed after the run
 * by the root hook in `@docex/testkit/mocha-hooks`.
 */
export function testEventNamespace(): { stream: string; subjectPrefix: string } {
  return { stream: `DOCEX_T${runId.toUpperCase()}`, subjectPrefix: `docex_t${runId}` };
}

/** A database name no other run uses; tests drop it when they finish. */
export function uniqueDatabaseName(label: string): string {
  return `docex_test_${label}_${randomBytes(5).toString("hex")}`;
}

export async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), "postgres") });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Configuration of a service for an in-process test: random ports, a fresh database, this
 * process's event namespace and gRPC identities (GRPC_TLS_DIR). `overrides` take precedence, like environment variables would;
 * a service with settings of its own passes its schema so they survive parsing.
 */
export function testServiceConfig<S extends z.ZodType = ReturnType<typeof serviceConfigSchema>>(
  service: ServiceName,
  overrides: Record<string, string | number> = {},
  schema?: S,
): z.output<S> {
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    PORT: "0",
    GRPC_PORT: "0",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    DATABASE_URL: testDatabaseServerUrl(),
    DATABASE_NAME: uniqueDatabaseName(service),
    NATS_URL: testNatsUrl(),
    NATS_STREAM: testEventNamespace().stream,
    NATS_SUBJECT_PREFIX: testEventNamespace().subjectPrefix,
    SHUTDOWN_TIMEOUT_MS: "2000",
    GRPC_TLS_DIR: testGrpcTlsDir(),
  };
  for (const [key, value] of Object.entries(overrides)) env[key] = String(value);
  return (schema ?? serviceConfigSchema(service)).parse(env) as z.output<S>;
}
