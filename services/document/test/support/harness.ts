import { randomBytes, randomUUID } from "node:crypto";
import { MembershipDouble } from "@docex/access/testing";
import type { RunningService } from "@docex/kit/runtime";
import { createDocumentClient, type DocumentClient } from "@docex/protos";
import { clientAsAllowedCallers, dropDatabase, EventRecorder, freePort, TestIssuer, testServiceConfig } from "@docex/testkit";
import { documentCallers } from "../../src/grpc/document-handlers.js";
import { configSchema, type DocumentConfig, type DocumentValidator, type SavedEdit, startDocumentService } from "../../src/service.js";

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  body: any;
  headers: Headers;
}

/** One user's view of the HTTP API, with a fresh access token from the test issuer on each call. */
export class UserApi {
  constructor(
    private readonly baseUrl: string,
    private readonly issuer: TestIssuer,
    readonly userId: string,
  ) {}

  /** The raw answer of a GET (a file the API serves), as this user. */
  download(path: string): Promise<Response> {
    return fetch(`${this.baseUrl}/api/v2${path}`, { headers: { authorization: `Bearer ${this.issuer.mint({ sub: this.userId })}` } });
  }

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
  patch = (path: string, body: unknown) => this.call("PATCH", path, body);
}

/** The validator seam, steered by the test. */
export class ScriptedValidator implements DocumentValidator {
  readonly calls: SavedEdit[] = [];
  answer: DocumentValidator["validateEdit"] = async () => undefined;

  async validateEdit(edit: SavedEdit) {
    this.calls.push(edit);
    return this.answer(edit);
  }
}

/** Whatever answers membership's gRPC: the in-process double, or the real service started by the test. */
export interface MembershipBackend {
  address: string;
  stop(): Promise<void>;
}

export interface HarnessOptions<M extends MembershipBackend> {
  /** gRPC address of an automation service; by default a port nobody listens on. */
  automationAddress?: string;
  /** By default the in-process double. */
  membership?: M;
  /** Permission answers are not cached by default, since roles change between steps of a test. */
  permissionCacheMs?: number;
  /**
   * gRPC address of a webhook service: validation goes through its Validate (document_validation and the initial
   * validation runner, with short retry delays). Without it the ScriptedValidator answers and the runner is off.
   */
  webhookAddress?: string;
  /** Settings of the document service beyond the harness's. */
  env?: Record<string, string | number>;
}

/**
 * The document service in-process on real Postgres and NATS, with tokens from a test issuer and membership
 * played by an in-process gRPC double.
 */
export class Harness<M extends MembershipBackend = MembershipDouble> {
  private constructor(
    readonly issuer: TestIssuer,
    readonly membership: M,
    readonly config: DocumentConfig,
    readonly running: RunningService,
    readonly grpc: DocumentClient,
    readonly events: EventRecorder,
    readonly validator: ScriptedValidator,
  ) {}

  static async start(options?: HarnessOptions<MembershipDouble>): Promise<Harness<MembershipDouble>>;
  static async start<M extends MembershipBackend>(options: HarnessOptions<M> & { membership: M; issuer: TestIssuer }): Promise<Harness<M>>;
  static async start(options: HarnessOptions<MembershipBackend> & { issuer?: TestIssuer } = {}): Promise<Harness<MembershipBackend>> {
    const issuer = options.issuer ?? (await TestIssuer.start());
    const membership = options.membership ?? (await MembershipDouble.start());
    const events = await EventRecorder.start({
      subjects: ["docex.document.>", "docex.queue.>", "docex.workspace.>", "docex.configuration.changed"],
      label: "document",
    });
    const config = testServiceConfig(
      "document",
      {
        AUTH_JWKS_URL: issuer.jwksUri,
        MEMBERSHIP_GRPC_ADDR: membership.address,
        AUTOMATION_GRPC_ADDR: options.automationAddress ?? `127.0.0.1:${await freePort()}`,
        DOCUMENT_PERMISSION_CACHE_MS: options.permissionCacheMs ?? 0,
        DOCUMENT_USER_SCHEMA_CACHE_MS: 0,
        WEBHOOK_GRPC_ADDR: options.webhookAddress ?? `127.0.0.1:${await freePort()}`,
        ...options.env,
      },
      configSchema,
    );
    const validator = new ScriptedValidator();
    const running = await startDocumentService(
      config,
      options.webhookAddress
        ? { initialValidation: { retryDelaysMs: [300, 300], pollIntervalMs: 200 } }
        : { validator, initialValidation: false },
    );
    // Each method called as a service allowed to call it.
    const grpc = clientAsAllowedCallers(documentCallers, (identity) =>
      createDocumentClient(`127.0.0.1:${running.grpcPort}`, { identity, deadlineMs: 5_000 }),
    );
    return new Harness(issuer, membership, config, running, grpc, events, validator);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.running.httpPort}`;
  }

  as(userId: string): UserApi {
    return new UserApi(this.baseUrl, this.issuer, userId);
  }

  get double(): MembershipDouble {
    if (!(this.membership instanceof MembershipDouble)) throw new Error("this harness runs the real membership service");
    return this.membership;
  }

  /** A new organization (in the membership double) with a new owner. */
  organization(label = "org"): { id: string; humanizedId: string; owner: UserApi } {
    const ownerId = randomUUID();
    const organization = this.double.addOrganization(`${label}-${randomBytes(4).toString("hex")}`, ownerId);
    return { id: organization.id, humanizedId: organization.humanized_id, owner: this.as(ownerId) };
  }

  /** A new user with `role` in the organization. */
  member(organizationId: string, role: Parameters<MembershipDouble["setRole"]>[2], queueIds: string[] | null = null): UserApi {
    const userId = randomUUID();
    this.double.setRole(organizationId, userId, role, queueIds);
    return this.as(userId);
  }

  async stop(): Promise<void> {
    this.grpc.close();
    await this.running.stop();
    await Promise.all([this.events.stop(), this.membership.stop(), this.issuer.stop()]);
    await dropDatabase(this.config.DATABASE_NAME);
  }
}

/** `reply` when it has `status`; otherwise it fails, saying what came instead. */
export async function ok(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer;
}

/**
 * An organization with a workspace and a queue, created through the API by its owner: the default schema and names
 * from `label` unless given.
 */
export async function queueFixture(
  h: Harness<MembershipDouble>,
  label = "acme",
  options: { annotationSchema?: unknown[]; workspaceName?: string; queueName?: string } = {},
) {
  const organization = h.organization(label);
  const workspace = await organization.owner.post("/workspaces", {
    organization_id: organization.id,
    name: options.workspaceName ?? `${label} workspace`,
  });
  if (workspace.status !== 201) throw new Error(`workspace: ${workspace.status} ${JSON.stringify(workspace.body)}`);
  const queue = await organization.owner.post("/queues", {
    workspace_id: workspace.body.data.id,
    name: options.queueName ?? `${label} invoices`,
    ...(options.annotationSchema ? { annotation_schema: options.annotationSchema } : {}),
  });
  if (queue.status !== 201) throw new Error(`queue: ${queue.status} ${JSON.stringify(queue.body)}`);
  return { organization, owner: organization.owner, workspaceId: workspace.body.data.id as string, queueId: queue.body.data.id as string };
}

/** Uploads a document and, with `extracted`, records an extraction so that it is `to_validate`. */
export async function documentFixture(api: UserApi, queueId: string, options: { extracted?: boolean; fileName?: string } = {}) {
  const uploaded = await api.post(`/queues/${queueId}/documents`, { file_name: options.fileName ?? "invoice.pdf" });
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
  const id = uploaded.body.data.id as string;
  if (options.extracted) {
    const extraction = await api.post(`/documents/${id}/extraction`, {
      annotations: [
        { key: "invoice_id", value: "INV-1", confidence: 97 },
        { key: "total_due", value: "1 234,50", confidence: 91 },
      ],
      confidence: 93,
    });
    if (extraction.status !== 200) throw new Error(`extraction: ${extraction.status} ${JSON.stringify(extraction.body)}`);
  }
  return id;
}
