import { randomBytes, randomUUID } from "node:crypto";
import { acceptInvitations } from "@docex/access/testing";
import { configSchema as documentConfigSchema, startDocumentService } from "@docex/document";
import { connectDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import { createDocumentClient, type DocumentClient } from "@docex/protos";
import {
  dropDatabase,
  EventRecorder,
  freePort,
  startMembershipAndDocument,
  TestIssuer,
  testGrpcIdentity,
  testServiceConfig,
  UserDirectoryStub,
} from "@docex/testkit";
import { configSchema, startAutomationService } from "../../src/service.js";

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  body: any;
  headers: Headers;
}

/** One user's view of one service's HTTP API, with a fresh access token from the test issuer on each call. */
export class UserApi {
  constructor(
    private readonly baseUrl: string,
    private readonly issuer: TestIssuer,
    readonly userId: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Reply> {
    const response = await fetch(`${this.baseUrl}/api/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.issuer.mint({ sub: this.userId })}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  get = (path: string) => this.call("GET", path);
  post = (path: string, body?: unknown) => this.call("POST", path, body ?? {});
  put = (path: string, body: unknown) => this.call("PUT", path, body);
  patch = (path: string, body: unknown) => this.call("PATCH", path, body);
  delete = (path: string) => this.call("DELETE", path);
}

export interface StackOptions {
  /** gRPC address of a register service; by default a port nobody listens on (the register service is down). */
  registerAddress?: string;
}

/**
 * The automation service in-process with the real membership and document services (auth's directory
 * stubbed), on real Postgres and NATS, tokens from a test issuer. Each service has its own database.
 */
export class Stack {
  readonly directory = new UserDirectoryStub();
  private databases: string[] = [];
  private running: RunningService[] = [];
  issuer!: TestIssuer;
  membership!: RunningService;
  document!: RunningService;
  automation!: RunningService;
  documentGrpc!: DocumentClient;
  automationDatabase!: Sql;
  tap!: EventRecorder;

  static async start(options: StackOptions = {}): Promise<Stack> {
    const stack = new Stack();
    try {
      await stack.boot(options);
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  private async boot(options: StackOptions): Promise<void> {
    this.issuer = await TestIssuer.start();
    this.tap = await EventRecorder.start({
      subjects: ["docex.automation.applied", "docex.document.extracted", "docex.configuration.changed"],
      label: "automation",
    });
    // Its port chosen first: the document service calls automation.
    const automationGrpcPort = await freePort();
    const started = await startMembershipAndDocument(
      {
        membership: {
          configSchema: membershipConfigSchema,
          start: (config) => startMembershipService(config, { userDirectory: this.directory }),
        },
        document: { configSchema: documentConfigSchema, start: startDocumentService },
      },
      {
        issuer: this.issuer,
        document: {
          AUTOMATION_GRPC_ADDR: `127.0.0.1:${automationGrpcPort}`,
          DOCUMENT_PERMISSION_CACHE_MS: 0,
          DOCUMENT_USER_SCHEMA_CACHE_MS: 0,
          // The queue DTO waits for automation's answer; the default 250 ms is tight for a test machine under load.
          DOCUMENT_AUTOMATION_DEADLINE_MS: 2_000,
        },
      },
    );
    for (const { service, database } of [started.membership, started.document]) {
      this.running.push(service);
      this.databases.push(database);
    }
    this.membership = started.membership.service;
    this.document = started.document.service;
    const automationConfig = testServiceConfig(
      "automation",
      {
        AUTH_JWKS_URL: this.issuer.jwksUri,
        GRPC_PORT: automationGrpcPort,
        MEMBERSHIP_GRPC_ADDR: `127.0.0.1:${this.membership.grpcPort}`,
        DOCUMENT_GRPC_ADDR: `127.0.0.1:${this.document.grpcPort}`,
        REGISTER_GRPC_ADDR: options.registerAddress ?? `127.0.0.1:${await freePort()}`,
        AUTOMATION_PERMISSION_CACHE_MS: 0,
      },
      configSchema,
    );
    this.databases.push(automationConfig.DATABASE_NAME);
    this.automation = await startAutomationService(automationConfig);
    this.running.push(this.automation);
    this.documentGrpc = // As learning, a service allowed to read and change documents.
      this.documentGrpc = createDocumentClient(`127.0.0.1:${this.document.grpcPort}`, {
        identity: testGrpcIdentity("learning"),
        deadlineMs: 5_000,
      });
    this.automationDatabase = await connectDatabase({
      serverUrl: automationConfig.DATABASE_URL,
      database: automationConfig.DATABASE_NAME,
      poolMax: 2,
      logger: createLogger("automation-test", "silent"),
    });
  }

  membershipApi = (userId: string) => new UserApi(`http://127.0.0.1:${this.membership.httpPort}`, this.issuer, userId);
  documentApi = (userId: string) => new UserApi(`http://127.0.0.1:${this.document.httpPort}`, this.issuer, userId);
  automationApi = (userId: string) => new UserApi(`http://127.0.0.1:${this.automation.httpPort}`, this.issuer, userId);

  /** A new organization owned by a new user, with a workspace and a queue of the default schema. */
  async organization(label = "acme") {
    const ownerId = randomUUID();
    const created = await this.membershipApi(ownerId).post("/organizations", { name: `${label} ${randomBytes(3).toString("hex")}` });
    if (created.status !== 201) throw new Error(`organization: ${created.status} ${JSON.stringify(created.body)}`);
    const organizationId = created.body.data.id as string;
    const owner = this.documentApi(ownerId);
    const workspace = await owner.post("/workspaces", { organization_id: organizationId, name: `${label} payables` });
    if (workspace.status !== 201) throw new Error(`workspace: ${workspace.status} ${JSON.stringify(workspace.body)}`);
    const queue = await owner.post("/queues", { workspace_id: workspace.body.data.id, name: `${label} invoices` });
    if (queue.status !== 201) throw new Error(`queue: ${queue.status} ${JSON.stringify(queue.body)}`);
    return {
      organizationId,
      workspaceId: workspace.body.data.id as string,
      queueId: queue.body.data.id as string,
      queueHumanizedId: queue.body.data.humanized_id as string,
      ownerId,
      owner: this.automationApi(ownerId),
      ownerDocuments: owner,
      /** Invites a member with a role through membership's API and returns their user id. */
      invite: async (role: string, queueIds?: string[]) => {
        const email = `${role}-${randomBytes(4).toString("hex")}@example.test`;
        const reply = await this.membershipApi(ownerId).post(`/organizations/${organizationId}/assign-roles`, [
          { operation: "invite", email, role, ...(queueIds ? { queue_ids: queueIds } : {}) },
        ]);
        if (reply.status !== 200) throw new Error(`assign-roles: ${reply.status} ${JSON.stringify(reply.body)}`);
        const userId = this.directory.idOf(email);
        await acceptInvitations(`127.0.0.1:${this.membership.grpcPort}`, organizationId, [{ userId, email }]);
        return userId;
      },
      /** Another queue in the same workspace. */
      addQueue: async (name: string) => {
        const other = await owner.post("/queues", { workspace_id: workspace.body.data.id, name });
        if (other.status !== 201) throw new Error(`queue: ${other.status} ${JSON.stringify(other.body)}`);
        return other.body.data.id as string;
      },
    };
  }

  /** Automation's record of the runs of a document (its own database). */
  async runsOf(
    documentId: string,
  ): Promise<Array<{ outcome: string; reason: string; applied_rules: string[]; status: string | null; attempts: number }>> {
    return this.automationDatabase.rows(
      "SELECT outcome, reason, applied_rules::text[] AS applied_rules, status, attempts FROM document_runs WHERE document_id = $1 ORDER BY created_at",
      [documentId],
    );
  }

  async stop(): Promise<void> {
    this.documentGrpc?.close();
    await this.automationDatabase?.close().catch(() => undefined);
    for (const service of this.running.reverse()) await service.stop();
    await this.tap?.stop();
    await this.issuer?.stop();
    for (const name of this.databases) await dropDatabase(name);
  }
}
