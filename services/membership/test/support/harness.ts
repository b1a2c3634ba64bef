import { randomBytes } from "node:crypto";
import type { Role } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { createMembershipClient, type MembershipClient } from "@docex/protos";
import {
  clientAsAllowedCallers,
  dropDatabase,
  eventually,
  TestIssuer,
  testEventNamespace,
  testNatsUrl,
  testServiceConfig,
} from "@docex/testkit";
import type { DocumentPort } from "../../src/domain/document-port.js";
import { membershipCallers } from "../../src/grpc/membership-handlers.js";
import { configSchema, type MembershipConfig, type MembershipServiceOptions, startMembershipService } from "../../src/service.js";
import { AuthDouble } from "./auth-double.js";

/** Stands in for the document service's ResolveEntity of queues. */
export class KnownQueues implements DocumentPort {
  private readonly organizationOf = new Map<string, string>();

  add(queueId: string, organizationId: string): string {
    this.organizationOf.set(queueId, organizationId);
    return queueId;
  }

  async queueIn(organizationId: string, queueId: string): Promise<boolean> {
    return this.organizationOf.get(queueId) === organizationId;
  }
}

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

export interface RecordedEvent {
  subject: string;
  id: string;
  type: string;
  organization_id: string | null;
  data: Record<string, unknown>;
}

let counter = 0;
export function uniqueLabel(label: string): string {
  counter += 1;
  return `${label}-${counter}-${randomBytes(3).toString("hex")}`;
}

/**
 * The membership service in-process against real Postgres and NATS: access tokens from a TestIssuer, auth
 * played by AuthDouble over real gRPC, a gRPC client of the service, and a record of the events it publishes.
 */
export class MembershipHarness {
  readonly events: RecordedEvent[] = [];

  private constructor(
    readonly config: MembershipConfig,
    readonly running: RunningService,
    readonly issuer: TestIssuer,
    readonly auth: AuthDouble,
    readonly grpc: MembershipClient,
    readonly bus: EventBus,
    private readonly subscription: { stop(): void },
    /** The queues the document service would know: tests add the ones they use. */
    readonly queues: KnownQueues,
  ) {}

  /** `settings`: configuration the test sets (e.g. INVITATION_MAX_PENDING). */
  static async start(
    options: Omit<MembershipServiceOptions, "userDirectory" | "queues"> = {},
    settings: Record<string, string | number> = {},
  ): Promise<MembershipHarness> {
    const [issuer, auth] = await Promise.all([TestIssuer.start(), AuthDouble.start()]);
    const logger = createLogger("membership-test", "silent");
    const bus = await EventBus.connect({ url: testNatsUrl(), namespace: testEventNamespace(), name: "membership-test", logger });
    const config = testServiceConfig(
      "membership",
      {
        AUTH_JWKS_URL: issuer.jwksUri,
        JWT_ISSUER: issuer.issuer,
        JWT_AUDIENCE: issuer.audience,
        AUTH_GRPC_ADDR: auth.address,
        ...settings,
      },
      configSchema,
    );
    const queues = new KnownQueues();
    const running = await startMembershipService(config, { ...options, queues });
    // Each method called as a service allowed to call it.
    const grpc = clientAsAllowedCallers(membershipCallers, (identity) =>
      createMembershipClient(`127.0.0.1:${running.grpcPort}`, { identity, deadlineMs: 5_000 }),
    );
    let harness: MembershipHarness | undefined;
    const subscription = bus.broadcast("docex.>", (payload, subject) => {
      const event = payload as Omit<RecordedEvent, "subject"> | undefined;
      if (
        harness &&
        (event?.type === "membership.changed" || event?.type === "organization.created" || event?.type === "configuration.changed")
      ) {
        harness.events.push({ subject, ...event });
      }
    });
    harness = new MembershipHarness(config, running, issuer, auth, grpc, bus, subscription, queues);
    return harness;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.running.httpPort}`;
  }

  /** A user auth knows (active unless told otherwise), with an access token. */
  person(label: string, status: "active" | "invited" | "deactivated" = "active"): Person {
    const email = `${uniqueLabel(label)}@example.test`;
    const user = this.auth.addUser(email, status, label);
    return { id: user.id, email: user.email, token: this.issuer.mint({ sub: user.id, email: user.email }) };
  }

  async call(method: string, path: string, options: { as?: Person; token?: string; body?: unknown } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    const token = options.token ?? options.as?.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${this.baseUrl}/api/v2${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  async createOrganization(
    owner: Person,
    name = uniqueLabel("Org"),
    humanizedId?: string,
  ): Promise<{ id: string; humanized_id: string; name: string }> {
    const answer = await this.call("POST", "/organizations", {
      as: owner,
      body: { name, ...(humanizedId ? { humanized_id: humanizedId } : {}) },
    });
    if (answer.status !== 201) throw new Error(`organization not created: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  /** The invitee accepts, as auth relays it when they use the mailed token (AcceptInvitation). */
  async accept(organizationId: string, person: Pick<Person, "id" | "email">, name = ""): Promise<boolean> {
    const answer = await this.grpc.acceptInvitation({ organization_id: organizationId, user_id: person.id, email: person.email, name });
    return answer.accepted;
  }

  /** An organization whose owner invited one active user per role given, in one batch, and who all accepted. */
  async team(roles: Role[], queueIds: Partial<Record<number, string[]>> = {}) {
    const owner = this.person("owner");
    const organization = await this.createOrganization(owner);
    // The queues the members are limited to are queues of this organization, as the document service would say.
    for (const ids of Object.values(queueIds)) for (const queueId of ids ?? []) this.queues.add(queueId, organization.id);
    const members = roles.map((role) => ({ role, person: this.person(role) }));
    if (members.length) {
      const answer = await this.call("POST", `/organizations/${organization.id}/assign-roles`, {
        as: owner,
        body: members.map(({ role, person }, index) => ({
          operation: "invite",
          email: person.email,
          role,
          ...(queueIds[index] ? { queue_ids: queueIds[index] } : {}),
        })),
      });
      if (answer.status !== 200) throw new Error(`team not invited: ${answer.status} ${JSON.stringify(answer.body)}`);
      await Promise.all(members.map(({ role, person }) => this.accept(organization.id, person, role)));
    }
    return { organization, owner, members: members.map(({ person }) => person) };
  }

  async memberships(organizationId: string, as: Person): Promise<Array<Record<string, unknown>>> {
    const answer = await this.call("GET", `/organizations/${organizationId}/raw-memberships`, { as });
    if (answer.status !== 200) throw new Error(`raw-memberships: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  waitForEvent(predicate: (event: RecordedEvent) => boolean, timeoutMs = 5_000): Promise<RecordedEvent> {
    return eventually(() => this.events.find(predicate), timeoutMs, 20);
  }

  async stop(): Promise<void> {
    this.subscription.stop();
    this.grpc.close();
    await this.running.stop();
    await this.bus.close();
    await Promise.all([this.auth.stop(), this.issuer.stop(), dropDatabase(this.config.DATABASE_NAME)]);
  }
}
