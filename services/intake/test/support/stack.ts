import { randomBytes, randomUUID } from "node:crypto";
import { configSchema as documentConfigSchema, startDocumentService } from "@docex/document";
import type { RunningService } from "@docex/kit/runtime";
import { configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import { dropDatabase, freePort, startMembershipAndDocument, TestIssuer, testServiceConfig, UserDirectoryStub } from "@docex/testkit";
import { configSchema, type IntakeServiceOptions, type RunningIntake, startIntakeService } from "../../src/service.js";

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  body: any;
}

/** One user's view of the document and membership APIs, with a fresh token from the test issuer on each call. */
export class UserApi {
  constructor(
    private readonly stack: IntakeStack,
    readonly userId: string,
  ) {}

  async call(service: "membership" | "document", method: string, path: string, body?: unknown): Promise<Reply> {
    const response = await fetch(`${this.stack.urlOf(service)}/api/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.stack.issuer.mint({ sub: this.userId })}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  document = (method: string, path: string, body?: unknown) => this.call("document", method, path, body);
}

/** A queue of a new organization, with its owner. */
export interface QueueFixture {
  id: string;
  humanizedId: string;
  inboxEmail: string;
  organizationId: string;
  owner: UserApi;
}

/**
 * The real membership and document services in-process on real Postgres and NATS (tokens from a test issuer; auth's
 * user directory stubbed; automation not running) and the intake in front of them, its SMTP server on a free port.
 */
export class IntakeStack {
  intake!: RunningIntake;
  intakeDatabase = "";

  private constructor(
    readonly issuer: TestIssuer,
    private readonly running: Array<{ service: RunningService; database: string }>,
  ) {}

  static async start(intakeSettings: Record<string, string | number> = {}, options: IntakeServiceOptions = {}): Promise<IntakeStack> {
    const issuer = await TestIssuer.start();
    const started = await startMembershipAndDocument(
      {
        membership: {
          configSchema: membershipConfigSchema,
          start: (config) => startMembershipService(config, { userDirectory: new UserDirectoryStub() }),
        },
        document: { configSchema: documentConfigSchema, start: (config) => startDocumentService(config, { initialValidation: false }) },
      },
      { issuer, document: { AUTOMATION_GRPC_ADDR: `127.0.0.1:${await freePort()}`, WEBHOOK_GRPC_ADDR: `127.0.0.1:${await freePort()}` } },
    );
    const stack = new IntakeStack(issuer, [started.membership, started.document]);
    await stack.startIntake(intakeSettings, options);
    return stack;
  }

  /** The settings an intake of this stack runs with (a process of its own takes them as its environment). */
  intakeSettings(overrides: Record<string, string | number> = {}): Record<string, string> {
    const settings: Record<string, string | number> = {
      DOCUMENT_GRPC_ADDR: `127.0.0.1:${this.running[1]!.service.grpcPort}`,
      INTAKE_SMTP_PORT: 0,
      INTAKE_MAIL_AUTH: "off",
      ...overrides,
    };
    return Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, String(value)]));
  }

  async startIntake(overrides: Record<string, string | number> = {}, options: IntakeServiceOptions = {}): Promise<RunningIntake> {
    const config = testServiceConfig("intake", this.intakeSettings(overrides), configSchema);
    this.intake = await startIntakeService(config, options);
    this.intakeDatabase = config.DATABASE_NAME;
    return this.intake;
  }

  async stopIntake(): Promise<void> {
    await this.intake.stop();
    await dropDatabase(this.intakeDatabase);
  }

  urlOf(service: "membership" | "document"): string {
    return `http://127.0.0.1:${this.running[service === "membership" ? 0 : 1]!.service.httpPort}`;
  }

  get smtpUrl(): string {
    return `smtp://127.0.0.1:${this.intake.smtpPort}`;
  }

  user(userId: string = randomUUID()): UserApi {
    return new UserApi(this, userId);
  }

  /** A new organization, workspace and queue, created through the APIs by a new owner. */
  async queue(label = "inbox"): Promise<QueueFixture> {
    const owner = this.user();
    const organization = await owner.call("membership", "POST", "/organizations", { name: `${label} ${randomBytes(3).toString("hex")}` });
    if (organization.status !== 201) throw new Error(`organization: ${organization.status} ${JSON.stringify(organization.body)}`);
    const workspace = await owner.document("POST", "/workspaces", { organization_id: organization.body.data.id, name: "Accounts payable" });
    if (workspace.status !== 201) throw new Error(`workspace: ${workspace.status} ${JSON.stringify(workspace.body)}`);
    const queue = await owner.document("POST", "/queues", { workspace_id: workspace.body.data.id, name: `${label} invoices` });
    if (queue.status !== 201) throw new Error(`queue: ${queue.status} ${JSON.stringify(queue.body)}`);
    return {
      id: queue.body.data.id,
      humanizedId: queue.body.data.humanized_id,
      inboxEmail: queue.body.data.inbox_email,
      organizationId: organization.body.data.id,
      owner,
    };
  }

  async stop(): Promise<void> {
    await this.stopIntake().catch(() => undefined);
    for (const { service, database } of [...this.running].reverse()) {
      await service.stop();
      await dropDatabase(database);
    }
    await this.issuer.stop();
  }
}

/** A MIME message with attachments, as a supplier's mail program would send it. */
export function mimeMessage(mail: {
  from: string;
  to: string;
  subject: string;
  messageId?: string;
  attachments: Array<{ name: string; type: string; content: Buffer }>;
}): Buffer {
  const boundary = `b-${randomBytes(8).toString("hex")}`;
  const lines = [
    `From: Supplier Accounts <${mail.from}>`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    ...(mail.messageId ? [`Message-ID: <${mail.messageId}>`] : []),
    "Date: Mon, 07 Dec 2026 10:00:00 +0000",
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    "Please find our invoices attached.",
  ];
  for (const attachment of mail.attachments) {
    lines.push(
      `--${boundary}`,
      `Content-Type: ${attachment.type}; name="${attachment.name}"`,
      `Content-Disposition: attachment; filename="${attachment.name}"`,
      "Content-Transfer-Encoding: base64",
      "",
      attachment.content.toString("base64").replace(/.{76}/g, "$&\r\n"),
    );
  }
  lines.push(`--${boundary}--`, "");
  return Buffer.from(lines.join("\r\n"));
}

/** A small PDF: its bytes differ by `label`, so two of them are two files. */
export function pdf(label: string, padding = 0): Buffer {
  return Buffer.concat([
    Buffer.from(`%PDF-1.4\n% ${label}\n1 0 obj << /Type /Catalog >> endobj\n`),
    Buffer.alloc(padding, 0x20),
    Buffer.from("\n%%EOF\n"),
  ]);
}
