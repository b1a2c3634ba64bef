import { randomBytes } from "node:crypto";
import { acceptInvitations } from "@docex/access/testing";
import { createEvent, type DocexEvent, eventSubject, parseEvent } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { databaseUrl } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import {
  dropDatabase,
  EventRecorder,
  RecordingReceiver,
  TestIssuer,
  testDatabaseServerUrl,
  testEventNamespace,
  testGrpcTlsDir,
  testNatsUrl,
  uniqueDatabaseName,
} from "@docex/testkit";
import pg from "pg";
import { configSchema, startWebhookService, type WebhookConfig, type WebhookServiceOptions } from "../../src/service.js";
import { AuthDouble } from "./auth-double.js";
import { DocumentDouble } from "./document-double.js";

export interface Person {
  id: string;
  email: string;
  token: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  body: any;
}

export interface Hierarchy {
  organizationId: string;
  workspaceId: string;
  queueId: string;
  documentId: string;
}

let counter = 0;
export function uniqueLabel(label: string): string {
  counter += 1;
  return `${label}-${counter}-${randomBytes(3).toString("hex")}`;
}

/** Settings every test instance shares: fast polling, short leases and a short retry schedule. */
export function webhookTestEnv(overrides: Record<string, string | number> = {}): Record<string, string> {
  const { stream, subjectPrefix } = testEventNamespace();
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    PORT: "0",
    GRPC_PORT: "0",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    DATABASE_URL: testDatabaseServerUrl(),
    DATABASE_NAME: uniqueDatabaseName("webhook"),
    NATS_URL: testNatsUrl(),
    NATS_STREAM: stream,
    NATS_SUBJECT_PREFIX: subjectPrefix,
    SHUTDOWN_TIMEOUT_MS: "3000",
    GRPC_TLS_DIR: testGrpcTlsDir(),
    WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    WEBHOOK_RETRY_SCHEDULE: "0.3,0.6",
    WEBHOOK_POLL_INTERVAL_MS: "100",
    WEBHOOK_DELIVERY_TIMEOUT_MS: "2000",
    WEBHOOK_DELIVERY_LEASE_MS: "4000",
    WEBHOOK_CONSUMER_ACK_WAIT_MS: "3000",
    WEBHOOK_BREAKER_RESET_MS: "1000",
  };
  for (const [key, value] of Object.entries(overrides)) env[key] = String(value);
  return env;
}

/**
 * The webhook service in-process against real Postgres and NATS, with the real membership service
 * in-process (its auth calls answered by AuthDouble) and the document service played by DocumentDouble
 * (a gRPC double from a table). Access tokens come from a TestIssuer; events are published with the kit's
 * EventBus in this test run's namespace; receivers are RecordingReceivers on 127.0.0.1.
 */
export class WebhookHarness {
  readonly instances: Array<{ running: RunningService; config: WebhookConfig }> = [];
  private readonly receivers: RecordingReceiver[] = [];
  private readonly databases = new Set<string>();
  private readonly recorders: EventRecorder[] = [];

  private constructor(
    readonly issuer: TestIssuer,
    readonly auth: AuthDouble,
    readonly documents: DocumentDouble,
    readonly membership: RunningService,
    private readonly membershipDatabase: string,
    readonly bus: EventBus,
  ) {}

  static async start(
    webhookEnv: Record<string, string | number> = {},
    webhookOptions: WebhookServiceOptions = {},
  ): Promise<WebhookHarness> {
    const [issuer, auth, documents] = await Promise.all([TestIssuer.start(), AuthDouble.start(), DocumentDouble.start()]);
    const { stream, subjectPrefix } = testEventNamespace();
    const membershipConfig = membershipConfigSchema.parse({
      HOST: "127.0.0.1",
      PORT: "0",
      GRPC_PORT: "0",
      LOG_LEVEL: "silent",
      DATABASE_URL: testDatabaseServerUrl(),
      DATABASE_NAME: uniqueDatabaseName("membership"),
      NATS_URL: testNatsUrl(),
      NATS_STREAM: stream,
      NATS_SUBJECT_PREFIX: subjectPrefix,
      SHUTDOWN_TIMEOUT_MS: "2000",
      GRPC_TLS_DIR: testGrpcTlsDir(),
      AUTH_JWKS_URL: issuer.jwksUri,
      JWT_ISSUER: issuer.issuer,
      JWT_AUDIENCE: issuer.audience,
      AUTH_GRPC_ADDR: auth.address,
      DOCUMENT_GRPC_ADDR: documents.address,
    });
    const membership = await startMembershipService(membershipConfig);
    const bus = await EventBus.connect({
      url: testNatsUrl(),
      namespace: testEventNamespace(),
      name: "webhook-test",
      logger: createLogger("webhook-test", "silent"),
    });
    const harness = new WebhookHarness(issuer, auth, documents, membership, membershipConfig.DATABASE_NAME, bus);
    await harness.startWebhook(webhookEnv, webhookOptions);
    return harness;
  }

  /** The first instance; tests that need more start them with startWebhook. */
  get webhook(): { running: RunningService; config: WebhookConfig } {
    return this.instances[0]!;
  }

  /** The environment an instance of this harness runs with: the service addresses and the issuer's JWKS. */
  environment(overrides: Record<string, string | number> = {}): Record<string, string> {
    return webhookTestEnv({
      AUTH_JWKS_URL: this.issuer.jwksUri,
      JWT_ISSUER: this.issuer.issuer,
      JWT_AUDIENCE: this.issuer.audience,
      MEMBERSHIP_GRPC_ADDR: `127.0.0.1:${this.membership.grpcPort}`,
      DOCUMENT_GRPC_ADDR: this.documents.address,
      ...overrides,
    });
  }

  /** Another instance; with the DATABASE_NAME and key of an existing one it is a replica of it. */
  async startWebhook(overrides: Record<string, string | number> = {}, options: WebhookServiceOptions = {}) {
    const config = configSchema.parse(this.environment(overrides));
    const running = await startWebhookService(config, options);
    this.databases.add(config.DATABASE_NAME);
    const instance = { running, config };
    this.instances.push(instance);
    return instance;
  }

  async stopInstance(instance: { running: RunningService }): Promise<void> {
    await instance.running.stop();
    this.instances.splice(this.instances.indexOf(instance as (typeof this.instances)[number]), 1);
  }

  async receiver(): Promise<RecordingReceiver> {
    const receiver = await RecordingReceiver.start();
    this.receivers.push(receiver);
    return receiver;
  }

  person(label: string): Person {
    const email = `${uniqueLabel(label)}@example.test`;
    const user = this.auth.addUser(email);
    return { id: user.id, email: user.email, token: this.issuer.mint({ sub: user.id, email: user.email }) };
  }

  async call(
    method: string,
    path: string,
    options: { as?: Person; token?: string; body?: unknown; rawBody?: string; instance?: { running: RunningService } } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    const token = options.token ?? options.as?.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers["content-type"] = "application/json";
    const port = (options.instance ?? this.webhook).running.httpPort;
    const response = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  /**
   * A statement straight on an instance's database (the first one's by default): rows the API would refuse to write
   * today, such as those saved before a rule existed.
   */
  async sql<T extends Record<string, unknown>>(text: string, params: unknown[] = [], instance = this.webhook): Promise<T[]> {
    const client = await this.connection(instance);
    try {
      return (await client.query<T>(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** A connection of its own to the service's database (to hold locks as another process would); the caller ends it. */
  async connection(instance = this.webhook): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), instance.config.DATABASE_NAME) });
    await client.connect();
    return client;
  }

  /** An organization in membership (the owner is its owner) that the document double knows too. */
  async organization(owner: Person): Promise<{ id: string; humanized_id: string }> {
    const response = await fetch(`http://127.0.0.1:${this.membership.httpPort}/api/v2/organizations`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: uniqueLabel("Org") }),
    });
    const answer = (await response.json()) as { data: { id: string; humanized_id: string } };
    if (response.status !== 201) throw new Error(`organization not created: ${response.status} ${JSON.stringify(answer)}`);
    this.documents.addOrganization(answer.data.id, answer.data.humanized_id);
    return answer.data;
  }

  /** An organization whose owner invited one member per role given, in one batch. */
  async team(roles: string[]) {
    const owner = this.person("owner");
    const organization = await this.organization(owner);
    const members = await this.invite(
      owner,
      organization.id,
      roles.map((role) => ({ role })),
    );
    return { organization, owner, members };
  }

  /** Members added by the owner through membership's assign-roles (auth's part played by AuthDouble). */
  async invite(owner: Person, organizationId: string, members: Array<{ role: string; queueIds?: string[] }>): Promise<Person[]> {
    const people = members.map(({ role }) => this.person(role));
    if (members.length === 0) return people;
    const response = await fetch(`http://127.0.0.1:${this.membership.httpPort}/api/v2/organizations/${organizationId}/assign-roles`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify(
        members.map(({ role, queueIds }, index) => ({
          operation: "invite",
          email: people[index]!.email,
          role,
          ...(queueIds ? { queue_ids: queueIds } : {}),
        })),
      ),
    });
    if (response.status !== 200) throw new Error(`members not invited: ${response.status} ${await response.text()}`);
    await acceptInvitations(
      `127.0.0.1:${this.membership.grpcPort}`,
      organizationId,
      people.map((person) => ({ userId: person.id, email: person.email })),
    );
    return people;
  }

  /** A workspace, queue and document of the organization in the document double. */
  hierarchy(organizationId: string, approvers: string[] = []): Hierarchy {
    const workspaceId = this.documents.addWorkspace(organizationId);
    const queueId = this.documents.addQueue(workspaceId, uniqueLabel("queue"));
    const documentId = this.documents.addDocument(queueId, approvers);
    return { organizationId, workspaceId, queueId, documentId };
  }

  async createWebhook(as: Person, body: Record<string, unknown>): Promise<Record<string, string>> {
    const answer = await this.call("POST", "/webhooks", { as, body });
    if (answer.status !== 201) throw new Error(`webhook not created: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  /** Publishes `document.status_changed` as the document service would (through the kit's EventBus). */
  async statusChanged(at: Hierarchy, status = "ready_to_export", previous = "to_validate") {
    const event = createEvent("document.status_changed", {
      organization_id: at.organizationId,
      data: {
        document_id: at.documentId,
        queue_id: at.queueId,
        workspace_id: at.workspaceId,
        status: status as "ready_to_export",
        previous_status: previous as "to_validate",
        user_id: null,
      },
    });
    await this.bus.publish(eventSubject(event.type), event, { msgId: event.id });
    return event;
  }

  async queueCreated(at: { organizationId: string; workspaceId: string; queueId: string }) {
    const event = createEvent("queue.created", {
      organization_id: at.organizationId,
      data: { workspace_id: at.workspaceId, queue_id: at.queueId, organization_id: at.organizationId },
    });
    await this.bus.publish(eventSubject(event.type), event, { msgId: event.id });
    return event;
  }

  /**
   * Every `configuration.changed` on the stream (of this test run's namespace), as JetStream delivers it: a
   * durable consumer of its own that starts at the stream's beginning, so nothing published before the
   * subscription is missed either. Each is read against the event's contract (parseEvent), which throws.
   */
  async configurationEvents(): Promise<() => Array<DocexEvent<"configuration.changed">>> {
    const recorder = await EventRecorder.start({ subjects: [eventSubject("configuration.changed")], label: "webhook" });
    this.recorders.push(recorder);
    return () => recorder.events.map(({ event }) => parseEvent(event, "configuration.changed"));
  }

  async deliveries(as: Person, webhookId: string, query = ""): Promise<Answer> {
    return this.call("GET", `/webhooks/${webhookId}/deliveries${query}`, { as });
  }

  async stop(): Promise<void> {
    for (const instance of [...this.instances].reverse()) await instance.running.stop().catch(() => undefined);
    await this.membership.stop();
    for (const recorder of this.recorders) await recorder.stop();
    await this.bus.close();
    await Promise.all([...this.receivers.map((receiver) => receiver.stop()), this.auth.stop(), this.documents.stop(), this.issuer.stop()]);
    await Promise.all([...this.databases, this.membershipDatabase].map((name) => dropDatabase(name)));
  }
}
