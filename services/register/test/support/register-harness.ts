import { randomUUID } from "node:crypto";
import { MembershipDouble, type Role } from "@docex/access/testing";
import type { RunningService } from "@docex/kit/runtime";
import { createRegisterClient, type RegisterClient } from "@docex/protos";
import { dropDatabase, TestIssuer, testGrpcIdentity, testServiceConfig } from "@docex/testkit";
import { configSchema, type RegisterConfig, startRegisterService } from "../../src/service.js";
import { DocumentServiceDouble, type QueueRow } from "./document-double.js";

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  body: any;
}

export interface Member {
  userId: string;
  token: string;
}

export interface Item {
  value: string;
  label?: string | null;
  name?: string | null;
  register_id?: string | null;
  tax_id?: string | null;
  data?: Record<string, unknown> | null;
}

/**
 * The register service in-process against real Postgres and NATS, with tokens from a TestIssuer and
 * in-process test doubles of the two services it calls: document (ResolveEntity) and membership
 * (CheckPermission).
 */
export class RegisterHarness {
  private constructor(
    readonly config: RegisterConfig,
    readonly running: RunningService,
    readonly issuer: TestIssuer,
    readonly documents: DocumentServiceDouble,
    readonly membership: MembershipDouble,
  ) {}

  static async start(overrides: Record<string, string | number> = {}): Promise<RegisterHarness> {
    const [issuer, documents, membership] = await Promise.all([
      TestIssuer.start(),
      DocumentServiceDouble.start(),
      MembershipDouble.start(),
    ]);
    const config = testServiceConfig(
      "register",
      {
        AUTH_JWKS_URL: issuer.jwksUri,
        JWT_ISSUER: issuer.issuer,
        JWT_AUDIENCE: issuer.audience,
        DOCUMENT_GRPC_ADDR: documents.address,
        MEMBERSHIP_GRPC_ADDR: membership.address,
        ...overrides,
      },
      configSchema,
    );
    const running = await startRegisterService(config);
    return new RegisterHarness(config, running, issuer, documents, membership);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.running.httpPort}/api/v2`;
  }

  grpcClient(): RegisterClient {
    return createRegisterClient(`127.0.0.1:${this.running.grpcPort}`, { identity: testGrpcIdentity("automation"), deadlineMs: 5_000 });
  }

  organization(): string {
    return randomUUID();
  }

  queue(organizationId: string, humanizedId?: string): QueueRow {
    return this.documents.addQueue(organizationId, humanizedId);
  }

  member(organizationId: string, role: Role, queueIds: string[] | null = null): Member {
    const userId = randomUUID();
    this.membership.setRole(organizationId, userId, role, queueIds);
    return { userId, token: this.issuer.mint({ sub: userId }) };
  }

  /** A signed-in user who belongs to no organization the test made. */
  stranger(): Member {
    const userId = randomUUID();
    return { userId, token: this.issuer.mint({ sub: userId }) };
  }

  async call(method: string, path: string, options: { token?: string; body?: unknown; rawBody?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  upload(token: string, body: unknown): Promise<Answer> {
    return this.call("POST", "/registers", { token, body });
  }

  /** Every item of a register, page by page. */
  async allItems(token: string, registerId: string): Promise<Answer["body"][]> {
    const items = [];
    for (let page = 1; ; page += 1) {
      const answer = await this.call("GET", `/registers/${registerId}/items?page=${page}&page_size=100`, { token });
      if (answer.status !== 200) throw new Error(`items page ${page} answered ${answer.status}`);
      items.push(...answer.body.data);
      if (page >= answer.body.pagination.total_pages) return items;
    }
  }

  async registersOf(token: string, queueRef: string): Promise<Answer["body"][]> {
    const answer = await this.call("GET", `/queues/${queueRef}/registers`, { token });
    if (answer.status !== 200) throw new Error(`registers of ${queueRef} answered ${answer.status}`);
    return answer.body.data;
  }

  async stop(): Promise<void> {
    await this.running.stop();
    await Promise.all([dropDatabase(this.config.DATABASE_NAME), this.documents.stop(), this.membership.stop(), this.issuer.stop()]);
  }
}

/** `count` items with values `<prefix>00001`, … and every other field derived from the value. */
export function itemsNamed(prefix: string, count: number, start = 1): Item[] {
  return Array.from({ length: count }, (_, index) => {
    const value = `${prefix}${String(start + index).padStart(5, "0")}`;
    return {
      value,
      label: `Label ${value}`,
      name: `Name ${value}`,
      register_id: `R${value}`,
      tax_id: `T${value}`,
      data: { n: start + index },
    };
  });
}
