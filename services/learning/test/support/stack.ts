import { randomBytes, randomUUID } from "node:crypto";
import { acceptInvitations } from "@docex/access/testing";
import { configSchema as documentConfigSchema, startDocumentService } from "@docex/document";
import { connectDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import {
  dropDatabase,
  EventRecorder,
  freePort,
  startMembershipAndDocument,
  TestIssuer,
  testServiceConfig,
  UserDirectoryStub,
} from "@docex/testkit";
import { supplierIdentity } from "../../src/domain/supplier.js";
import { SupplierMemories } from "../../src/domain/supplier-memory.js";
import { configSchema, startLearningService } from "../../src/service.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { UserApi } from "./user-api.js";

/** A user with one API object per service. */
export interface Person {
  userId: string;
  membership: UserApi;
  document: UserApi;
  learning: UserApi;
}

export interface OrganizationFixture {
  id: string;
  humanizedId: string;
  owner: Person;
}

/**
 * The real membership, document and learning services in-process on real Postgres and NATS, tokens from a
 * test issuer; only auth's user directory is stubbed (membership asks it when inviting). Automation is not
 * running: the document service shows its defaults.
 */
export class Stack {
  private constructor(
    readonly issuer: TestIssuer,
    private readonly directory: UserDirectoryStub,
    private readonly running: Array<{ service: RunningService; database: string }>,
    private readonly learningDatabase: Sql,
    readonly events: EventRecorder,
  ) {}

  static async start(): Promise<Stack> {
    const issuer = await TestIssuer.start();
    const directory = new UserDirectoryStub();
    const events = await EventRecorder.start({ subjects: ["docex.learning.feedback", "docex.document.extracted"], label: "learning" });
    const running: Array<{ service: RunningService; database: string }> = [];
    const auth = { AUTH_JWKS_URL: issuer.jwksUri, JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: issuer.audience };
    try {
      const started = await startMembershipAndDocument(
        {
          membership: {
            configSchema: membershipConfigSchema,
            start: (config) => startMembershipService(config, { userDirectory: directory }),
          },
          document: { configSchema: documentConfigSchema, start: startDocumentService },
        },
        { issuer, document: { AUTOMATION_GRPC_ADDR: `127.0.0.1:${await freePort()}` } },
      );
      running.push(started.membership, started.document);
      const [membership, document] = [started.membership.service, started.document.service];

      const learningConfig = testServiceConfig(
        "learning",
        {
          ...auth,
          MEMBERSHIP_GRPC_ADDR: `127.0.0.1:${membership.grpcPort}`,
          DOCUMENT_GRPC_ADDR: `127.0.0.1:${document.grpcPort}`,
        },
        configSchema,
      );
      const learning = await startLearningService(learningConfig);
      running.push({ service: learning, database: learningConfig.DATABASE_NAME });

      const learningDatabase = await connectDatabase({
        serverUrl: learningConfig.DATABASE_URL,
        database: learningConfig.DATABASE_NAME,
        poolMax: 2,
        logger: createLogger("learning-test", "silent"),
      });
      return new Stack(issuer, directory, running, learningDatabase, events);
    } catch (error) {
      for (const { service, database } of running.reverse()) {
        await service.stop().catch(() => undefined);
        await dropDatabase(database).catch(() => undefined);
      }
      await events.stop();
      await issuer.stop();
      throw error;
    }
  }

  private url(index: number): string {
    return `http://127.0.0.1:${this.running[index]!.service.httpPort}`;
  }

  get membershipUrl(): string {
    return this.url(0);
  }
  get documentUrl(): string {
    return this.url(1);
  }
  get learningUrl(): string {
    return this.url(2);
  }

  person(userId: string = randomUUID()): Person {
    const api = (url: string) => new UserApi(url, this.issuer, userId);
    return { userId, membership: api(this.membershipUrl), document: api(this.documentUrl), learning: api(this.learningUrl) };
  }

  /** A new organization created through membership by a new owner. */
  async organization(label = "acme"): Promise<OrganizationFixture> {
    const owner = this.person();
    const created = await owner.membership.post("/organizations", { name: `${label} ${randomBytes(3).toString("hex")}` });
    if (created.status !== 201) throw new Error(`organization: ${created.status} ${JSON.stringify(created.body)}`);
    return { id: created.body.data.id, humanizedId: created.body.data.humanized_id, owner };
  }

  /** Invites `email` into the organization with `role` (membership's assign-roles) and returns them. */
  async invite(organization: OrganizationFixture, email: string, role: string, queueIds?: string[]): Promise<Person> {
    const reply = await organization.owner.membership.post(`/organizations/${organization.id}/assign-roles`, [
      { operation: "invite", email, role, ...(queueIds ? { queue_ids: queueIds } : {}) },
    ]);
    if (reply.status !== 200) throw new Error(`assign-roles: ${reply.status} ${JSON.stringify(reply.body)}`);
    const userId = this.directory.idOf(email);
    await acceptInvitations(`127.0.0.1:${this.running[0]!.service.grpcPort}`, organization.id, [{ userId, email }]);
    return this.person(userId);
  }

  /** How many document.extracted events learning has handled so far, from its /metrics. */
  async handledExtractions(): Promise<number> {
    const text = await (await fetch(`${this.learningUrl}/metrics`)).text();
    const line = text
      .split("\n")
      .find(
        (candidate) =>
          candidate.startsWith("events_consumed_total{") &&
          candidate.includes('consumer="learning__document_extracted"') &&
          candidate.includes('outcome="ok"'),
      );
    return line ? Number(line.split(" ").pop()) : 0;
  }

  /**
   * What a queue remembers of a supplier, one value per field, read from learning's database: nothing asks
   * learning for it (it fills documents itself), so the tests look at the memory where it is kept.
   */
  async memoryOf(request: { queue_id: string; supplier: { tax_id: string; register_id: string; name: string } }) {
    const orNull = (text: string) => (text.trim() === "" ? null : text);
    const identity = supplierIdentity({
      taxId: orNull(request.supplier.tax_id),
      registerId: orNull(request.supplier.register_id),
      name: orNull(request.supplier.name),
    });
    const memory = await new SupplierMemories(new MemoryStore(this.learningDatabase)).recall(request.queue_id.toLowerCase(), identity);
    return {
      fields: memory.fields.map((field) => ({ key: field.key, value: field.content.value, pinned: field.pinned })),
      line_items_visibility: memory.lineItemsVisibility ?? "",
      tax_detail_visibility: memory.taxDetailVisibility ?? "",
    };
  }

  async stop(): Promise<void> {
    await this.learningDatabase.close();
    for (const { service, database } of [...this.running].reverse()) {
      await service.stop();
      await dropDatabase(database);
    }
    await this.events.stop();
    await this.issuer.stop();
  }
}
