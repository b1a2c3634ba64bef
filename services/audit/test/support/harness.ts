import { randomBytes, randomUUID } from "node:crypto";
import type { Role } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import { createMembershipClient, type MembershipClient } from "@docex/protos";
import {
  dropDatabase,
  TestIssuer,
  testEventNamespace,
  testGrpcIdentity,
  testNatsUrl,
  testServiceConfig,
  UserDirectoryStub,
} from "@docex/testkit";
import { type AuditConfig, configSchema, startAuditService } from "../../src/service.js";

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

let counter = 0;
function uniqueLabel(label: string): string {
  counter += 1;
  return `${label}-${counter}-${randomBytes(3).toString("hex")}`;
}

/**
 * The audit service in-process against real Postgres and NATS, with the real membership service beside it (who may
 * read is membership's to say, over gRPC with mutual TLS): access tokens from a TestIssuer, events published on the bus.
 * Paths ending in /audit-log go to the audit service, the others to membership.
 */
export class AuditHarness {
  private constructor(
    readonly config: AuditConfig,
    private readonly audit: RunningService,
    private readonly membership: RunningService,
    readonly membershipDatabase: string,
    private readonly issuer: TestIssuer,
    private readonly users: UserDirectoryStub,
    private readonly auth: MembershipClient,
    readonly bus: EventBus,
  ) {}

  static async start(): Promise<AuditHarness> {
    const issuer = await TestIssuer.start();
    const tokens = { AUTH_JWKS_URL: issuer.jwksUri, JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: issuer.audience };
    const users = new UserDirectoryStub();
    const membershipConfig = testServiceConfig("membership", tokens, membershipConfigSchema);
    const membership = await startMembershipService(membershipConfig, {
      userDirectory: users,
      queues: { queueIn: async () => true },
    });
    const config = testServiceConfig("audit", { ...tokens, MEMBERSHIP_GRPC_ADDR: `127.0.0.1:${membership.grpcPort}` }, configSchema);
    const audit = await startAuditService(config);
    // AcceptInvitation as auth calls it when an invitee uses their token.
    const auth = createMembershipClient(`127.0.0.1:${membership.grpcPort}`, { identity: testGrpcIdentity("auth"), deadlineMs: 5_000 });
    const logger = createLogger("audit-test", "silent");
    const bus = await EventBus.connect({ url: testNatsUrl(), namespace: testEventNamespace(), name: "audit-test", logger });
    return new AuditHarness(config, audit, membership, membershipConfig.DATABASE_NAME, issuer, users, auth, bus);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.audit.httpPort}`;
  }

  /** A user auth knows, with an access token. */
  person(label: string): Person {
    const email = `${uniqueLabel(label)}@example.test`;
    const user = { id: randomUUID(), email, name: label };
    this.users.add(user);
    return { id: user.id, email, token: this.issuer.mint({ sub: user.id, email }) };
  }

  async call(method: string, path: string, options: { as?: Person; body?: unknown } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.as) headers.authorization = `Bearer ${options.as.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const service = path.split("?")[0]!.endsWith("/audit-log") ? this.audit : this.membership;
    const response = await fetch(`http://127.0.0.1:${service.httpPort}/api/v2${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** An organization whose owner invited one user per role given, who all accepted. */
  async team(roles: Role[]) {
    const owner = this.person("owner");
    const created = await this.call("POST", "/organizations", { as: owner, body: { name: uniqueLabel("Org") } });
    if (created.status !== 201) throw new Error(`organization not created: ${created.status} ${JSON.stringify(created.body)}`);
    const organization: { id: string; humanized_id: string } = created.body.data;
    const members = roles.map((role) => ({ role, person: this.person(role) }));
    if (members.length) {
      const answer = await this.call("POST", `/organizations/${organization.id}/assign-roles`, {
        as: owner,
        body: members.map(({ role, person }) => ({ operation: "invite", email: person.email, role })),
      });
      if (answer.status !== 200) throw new Error(`team not invited: ${answer.status} ${JSON.stringify(answer.body)}`);
      for (const { person } of members) {
        await this.auth.acceptInvitation({ organization_id: organization.id, user_id: person.id, email: person.email, name: "" });
      }
    }
    return { organization, owner, members: members.map(({ person }) => person) };
  }

  async stop(): Promise<void> {
    this.auth.close();
    await this.audit.stop();
    await this.membership.stop();
    await this.bus.close();
    await Promise.all([this.issuer.stop(), dropDatabase(this.config.DATABASE_NAME), dropDatabase(this.membershipDatabase)]);
  }
}
