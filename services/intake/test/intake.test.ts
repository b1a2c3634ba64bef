import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, testGrpcTlsDir, testServiceConfig } from "@docex/testkit";
import { expect } from "chai";
import { createTransport } from "nodemailer";
import { configSchema, type DocumentPort } from "../src/service.js";
import { IntakeStack, mimeMessage, pdf, type QueueFixture } from "./support/stack.js";

const serviceDir = fileURLToPath(new URL("..", import.meta.url));
const MESSAGE_LIMIT = 256 * 1024;

/** Sends `raw` to `to` over SMTP as a mail program would; resolves with the server's reply or its refusal. */
async function send(
  url: string,
  envelope: { from: string; to: string },
  raw: Buffer,
  options: { requireTLS?: boolean } = {},
): Promise<{ code: number; response: string }> {
  const transport = createTransport({
    url,
    // The test certificate is signed by the test CA, which the client does not know.
    tls: { rejectUnauthorized: false },
    requireTLS: options.requireTLS ?? false,
    connectionTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
    return { code: Number.parseInt(info.response, 10), response: info.response };
  } catch (error) {
    const failure = error as { responseCode?: number; response?: string; message: string };
    return { code: failure.responseCode ?? 0, response: failure.response ?? failure.message };
  } finally {
    transport.close();
  }
}

describe("email intake (real SMTP client, intake, document and membership services on real Postgres and NATS)", function () {
  this.timeout(120_000);
  let stack: IntakeStack;
  let queue: QueueFixture;
  /** Attachments the next mail's second one fails on once (a document service that fails mid-mail). */
  let failSecondAttachment = false;

  before(async () => {
    const flaky = (real: DocumentPort): DocumentPort => ({
      resolveInbox: (address, ctx) => real.resolveInbox(address, ctx),
      async receive(attachment, ctx) {
        if (failSecondAttachment && attachment.sourceKey.endsWith(":1")) {
          failSecondAttachment = false;
          throw new Error("document service connection lost");
        }
        return real.receive(attachment, ctx);
      },
    });
    stack = await IntakeStack.start(
      { INTAKE_MAX_MESSAGE_BYTES: MESSAGE_LIMIT, INTAKE_MESSAGES_PER_SENDER_PER_MINUTE: 1_000 },
      { documents: flaky },
    );
    queue = await stack.queue("acme");
  });

  after(async () => {
    await stack?.stop();
  });

  async function documentsOf(target: QueueFixture) {
    const reply = await target.owner.document("GET", `/queues/${target.id}/documents?page_size=100`);
    expect(reply.status).to.equal(200);
    return reply.body.data as Array<{ id: string; file_name: string; status: string; source: Record<string, unknown> }>;
  }

  it("shows every queue's inbox address in its DTO: <humanized_id>.<token>@INTAKE_MAIL_DOMAIN", async () => {
    expect(queue.inboxEmail).to.match(new RegExp(`^${queue.humanizedId}\\.[0-9a-f]{16}@docex\\.test$`));
    const read = await queue.owner.document("GET", `/queues/${queue.id}`);
    expect(read.body.data.inbox_email).to.equal(queue.inboxEmail);
    expect(read.body.data.inbox_allowed_senders).to.deep.equal([]);
  });

  it("makes each of a mail's two PDF attachments a document of the queue, with the sender, subject and message id in source", async () => {
    const messageId = `${randomUUID()}@supplier.test`;
    const raw = mimeMessage({
      from: "billing@supplier.test",
      to: queue.inboxEmail,
      subject: "Invoices 2026/11",
      messageId,
      attachments: [
        { name: "invoice-1.pdf", type: "application/pdf", content: pdf("one") },
        { name: "invoice-2.pdf", type: "application/pdf", content: pdf("two") },
        { name: "terms.docx", type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", content: Buffer.from("PK") },
      ],
    });
    const reply = await send(stack.smtpUrl, { from: "billing@supplier.test", to: queue.inboxEmail }, raw);
    expect(reply.code, reply.response).to.equal(250);
    const documents = (await documentsOf(queue)).filter((document) => document.source.message_id === messageId);
    expect(documents.map((document) => document.file_name).sort()).to.deep.equal(["invoice-1.pdf", "invoice-2.pdf"]);
    for (const document of documents) {
      expect(document.status).to.equal("received");
      expect(document.source).to.deep.include({
        channel: "email",
        from: "billing@supplier.test",
        subject: "Invoices 2026/11",
        message_id: messageId,
      });
      expect(document.source.auth).to.deep.equal({ spf: "none", dkim: "none", dmarc: "none" });
      expect(Date.parse(String(document.source.received_at))).to.be.closeTo(Date.now(), 60_000);
      const file = await fetch(`${stack.urlOf("document")}/api/v2/documents/${document.id}/file`, {
        headers: { authorization: `Bearer ${stack.issuer.mint({ sub: queue.owner.userId })}` },
      });
      expect(file.status).to.equal(200);
      expect(file.headers.get("content-type")).to.match(/^application\/pdf/);
    }
  });

  it("refuses mail to an address no queue has with 550, before the message is sent", async () => {
    const reply = await send(
      stack.smtpUrl,
      { from: "billing@supplier.test", to: `${queue.humanizedId}.0000000000000000@docex.test` },
      mimeMessage({ from: "billing@supplier.test", to: "x", subject: "x", attachments: [] }),
    );
    expect(reply.code, reply.response).to.equal(550);
  });

  it("refuses a sender outside inbox_allowed_senders with 550 and keeps nothing; owners set the list, addresses and @domains", async () => {
    const restricted = await stack.queue("restricted");
    const set = await restricted.owner.document("PATCH", `/queues/${restricted.id}`, {
      inbox_allowed_senders: ["AP@Allowed.test", "@partner.test"],
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body.data.inbox_allowed_senders).to.deep.equal(["ap@allowed.test", "@partner.test"]);
    const bad = await restricted.owner.document("PATCH", `/queues/${restricted.id}`, { inbox_allowed_senders: ["not an address"] });
    expect(bad.status).to.equal(400);

    const attachments = [{ name: "invoice.pdf", type: "application/pdf", content: pdf(`restricted ${randomUUID()}`) }];
    const refused = await send(
      stack.smtpUrl,
      { from: "someone@elsewhere.test", to: restricted.inboxEmail },
      mimeMessage({
        from: "someone@elsewhere.test",
        to: restricted.inboxEmail,
        subject: "Invoice",
        messageId: `${randomUUID()}@elsewhere.test`,
        attachments,
      }),
    );
    expect(refused.code, refused.response).to.equal(550);
    expect(refused.response).to.match(/not allowed/);
    expect(await documentsOf(restricted)).to.have.length(0);

    const taken = await send(
      stack.smtpUrl,
      { from: "billing@partner.test", to: restricted.inboxEmail },
      mimeMessage({
        from: "billing@partner.test",
        to: restricted.inboxEmail,
        subject: "Invoice",
        messageId: `${randomUUID()}@partner.test`,
        attachments,
      }),
    );
    expect(taken.code, taken.response).to.equal(250);
    expect(await documentsOf(restricted)).to.have.length(1);
  });

  it("refuses a message over INTAKE_MAX_MESSAGE_BYTES with 552 and keeps nothing", async () => {
    const big = await stack.queue("big");
    const raw = mimeMessage({
      from: "billing@supplier.test",
      to: big.inboxEmail,
      subject: "Too big",
      messageId: `${randomUUID()}@supplier.test`,
      attachments: [{ name: "scan.pdf", type: "application/pdf", content: pdf("big", MESSAGE_LIMIT) }],
    });
    const reply = await send(stack.smtpUrl, { from: "billing@supplier.test", to: big.inboxEmail }, raw);
    expect(reply.code, reply.response).to.equal(552);
    expect(await documentsOf(big)).to.have.length(0);
  });

  it("takes a mail without an accepted attachment with 250, makes no document, and counts it", async () => {
    const quiet = await stack.queue("quiet");
    const reply = await send(
      stack.smtpUrl,
      { from: "billing@supplier.test", to: quiet.inboxEmail },
      mimeMessage({
        from: "billing@supplier.test",
        to: quiet.inboxEmail,
        subject: "Hello",
        messageId: `${randomUUID()}@supplier.test`,
        attachments: [],
      }),
    );
    expect(reply.code, reply.response).to.equal(250);
    expect(await documentsOf(quiet)).to.have.length(0);
    const metrics = await (await fetch(`http://127.0.0.1:${stack.intake.httpPort}/metrics`)).text();
    expect(
      metrics.split("\n").find((line) => line.startsWith("intake_messages_total{") && line.includes('outcome="no_attachment"')),
    ).to.match(/ [1-9]/);
  });

  it("answers a failure mid-mail with 451 and, when the client retries, makes each document once", async () => {
    const retried = await stack.queue("retried");
    const messageId = `${randomUUID()}@supplier.test`;
    const raw = mimeMessage({
      from: "billing@supplier.test",
      to: retried.inboxEmail,
      subject: "Retried",
      messageId,
      attachments: [
        { name: "a.pdf", type: "application/pdf", content: pdf(`a ${messageId}`) },
        { name: "b.pdf", type: "application/pdf", content: pdf(`b ${messageId}`) },
      ],
    });
    failSecondAttachment = true;
    const first = await send(stack.smtpUrl, { from: "billing@supplier.test", to: retried.inboxEmail }, raw);
    expect(first.code, first.response).to.equal(451);
    expect((await documentsOf(retried)).map((document) => document.file_name)).to.deep.equal(["a.pdf"]);
    const second = await send(stack.smtpUrl, { from: "billing@supplier.test", to: retried.inboxEmail }, raw);
    expect(second.code, second.response).to.equal(250);
    expect((await documentsOf(retried)).map((document) => document.file_name).sort()).to.deep.equal(["a.pdf", "b.pdf"]);
  });

  it("stops the old address at once when the token is rotated (POST /queues/{id}/inbox-email)", async () => {
    const rotating = await stack.queue("rotating");
    const rotated = await rotating.owner.document("POST", `/queues/${rotating.id}/inbox-email`);
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
    const fresh = rotated.body.data.inbox_email as string;
    expect(fresh).to.not.equal(rotating.inboxEmail);
    expect(fresh.startsWith(`${rotating.humanizedId}.`)).to.equal(true);
    const attachments = [{ name: "invoice.pdf", type: "application/pdf", content: pdf(`rotating ${randomUUID()}`) }];
    const old = await send(
      stack.smtpUrl,
      { from: "billing@supplier.test", to: rotating.inboxEmail },
      mimeMessage({ from: "billing@supplier.test", to: rotating.inboxEmail, subject: "Old", attachments }),
    );
    expect(old.code, old.response).to.equal(550);
    const taken = await send(
      stack.smtpUrl,
      { from: "billing@supplier.test", to: fresh },
      mimeMessage({ from: "billing@supplier.test", to: fresh, subject: "New", attachments }),
    );
    expect(taken.code, taken.response).to.equal(250);
    expect(await documentsOf(rotating)).to.have.length(1);
    const stranger = stack.user();
    expect((await stranger.document("POST", `/queues/${rotating.id}/inbox-email`)).status).to.equal(404);
  });

  it("offers STARTTLS with a configured certificate and takes mail over it; without one a client that requires TLS is refused", async () => {
    const secure = await stack.queue("secure");
    const mail = () =>
      mimeMessage({
        from: "billing@supplier.test",
        to: secure.inboxEmail,
        subject: "Over TLS",
        messageId: `${randomUUID()}@supplier.test`,
        attachments: [{ name: "invoice.pdf", type: "application/pdf", content: pdf(`tls ${randomUUID()}`) }],
      });
    const plain = await send(stack.smtpUrl, { from: "billing@supplier.test", to: secure.inboxEmail }, mail(), { requireTLS: true });
    expect(plain.code, plain.response).to.not.equal(250);
    await stack.stopIntake();
    await stack.startIntake({
      INTAKE_TLS_CERT_FILE: join(testGrpcTlsDir(), "intake.crt"),
      INTAKE_TLS_KEY_FILE: join(testGrpcTlsDir(), "intake.key"),
    });
    const encrypted = await send(stack.smtpUrl, { from: "billing@supplier.test", to: secure.inboxEmail }, mail(), { requireTLS: true });
    expect(encrypted.code, encrypted.response).to.equal(250);
    expect(await documentsOf(secure)).to.have.length(1);
  });

  it("loses nothing when the intake process is killed while a mail is in flight: the retried mail's documents exist once", async () => {
    const killed = await stack.queue("killed");
    const messageId = `${randomUUID()}@supplier.test`;
    // The second attachment is large enough that the process is still handing it over when it is killed.
    const raw = mimeMessage({
      from: "billing@supplier.test",
      to: killed.inboxEmail,
      subject: "Killed",
      messageId,
      attachments: [
        { name: "small.pdf", type: "application/pdf", content: pdf(`small ${messageId}`) },
        { name: "large.pdf", type: "application/pdf", content: pdf(`large ${messageId}`, 4 * 1024 * 1024) },
      ],
    });
    const settings = stack.intakeSettings({ INTAKE_MAX_MESSAGE_BYTES: 30 * 1024 * 1024 });
    const first = await spawnIntake(settings);
    try {
      const sending = send(`smtp://127.0.0.1:${first.smtpPort}`, { from: "billing@supplier.test", to: killed.inboxEmail }, raw);
      await eventually(async () => {
        if ((await documentsOf(killed)).length === 0) throw new Error("no document yet");
        return true;
      }, 30_000);
      first.process.kill("SIGKILL");
      const cut = await sending;
      expect(cut.code, cut.response).to.not.equal(250);
    } finally {
      first.process.kill("SIGKILL");
    }
    // The intake comes back (here in-process, on the killed one's database) and the client sends the mail again.
    await stack.stopIntake();
    await stack.startIntake({ INTAKE_MAX_MESSAGE_BYTES: 30 * 1024 * 1024, DATABASE_NAME: first.database });
    const retry = await send(stack.smtpUrl, { from: "billing@supplier.test", to: killed.inboxEmail }, raw);
    expect(retry.code, retry.response).to.equal(250);
    const names = (await documentsOf(killed)).map((document) => document.file_name).sort();
    expect(names).to.deep.equal(["large.pdf", "small.pdf"]);
  });
});

/**
 * The intake as a process of its own (its build, dist/main.js: `turbo run test` builds first), so that it can be killed
 * without a goodbye.
 */
async function spawnIntake(env: Record<string, string>): Promise<{ process: ChildProcess; smtpPort: number; database: string }> {
  const config = testServiceConfig("intake", env, configSchema);
  const child = spawn(process.execPath, ["dist/main.js"], {
    cwd: serviceDir,
    env: {
      ...process.env,
      ...Object.fromEntries(Object.entries(config).map(([key, value]) => [key, String(value)])),
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const smtpPort = await new Promise<number>((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => reject(new Error("the intake process did not start within 30 s")), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const started = /"smtp_port":(\d+)/.exec(buffered);
      if (started) {
        clearTimeout(timer);
        resolve(Number(started[1]));
      }
      if (buffered.length > 100_000) buffered = buffered.slice(-10_000);
    });
    child.once("exit", (code) => reject(new Error(`the intake process exited with ${code} before it started`)));
  });
  child.stdout!.resume();
  return { process: child, smtpPort, database: config.DATABASE_NAME };
}
