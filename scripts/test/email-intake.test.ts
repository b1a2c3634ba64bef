import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "@docex/testkit";
import { buildInvoiceCorpus, type CorpusDocument } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { createTransport } from "nodemailer";
import { INTAKE_SMTP_PORT } from "../src/stack-environment.js";
import { type Stack, sharedStack } from "./support/stack.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { env, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

describe("email intake through the stack (npm start: intake, document, extraction; real Postgres and NATS)", function () {
  this.timeout(180_000);
  let stack: Stack;
  let token = "";
  let corpus: CorpusDocument[];

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    corpus = await buildInvoiceCorpus({ einvoices: 0, textPdfs: 2, offset: 5_200 });
  });

  it("a mail with two PDF invoices to a queue's inbox_email becomes two documents of the queue, extracted, with the mail's sender and subject; npm run inbox prints that address", async () => {
    const workspace = await stack.call("POST", "/workspaces", { token, body: { organization_id: "bootstrap", name: "Mail" } });
    expect(workspace.status, JSON.stringify(workspace.body)).to.equal(201);
    const queue = await stack.call("POST", "/queues", { token, body: { workspace_id: workspace.body.data.id, name: "Mailed invoices" } });
    expect(queue.status, JSON.stringify(queue.body)).to.equal(201);
    const inbox = queue.body.data.inbox_email as string;
    expect(inbox).to.match(/@docex\.test$/);
    // What `npm run --silent inbox -- <queue>` prints for this stack (its owner, its port offset).
    const printed = await run(process.execPath, [path.join(root, "scripts/dist/print-inbox.js"), queue.body.data.humanized_id], {
      ...process.env,
      BOOTSTRAP_OWNER_EMAIL: stack.owner.email,
      BOOTSTRAP_OWNER_PASSWORD: stack.owner.password,
      STACK_PORT_OFFSET: String(stack.portOffset),
    });
    expect(printed.trim()).to.equal(inbox);

    const transport = createTransport({ host: "127.0.0.1", port: INTAKE_SMTP_PORT + stack.portOffset, secure: false, ignoreTLS: true });
    const messageId = `<${randomUUID()}@supplier.test>`;
    const [first, second] = corpus as [CorpusDocument, CorpusDocument];
    const info = await transport.sendMail({
      from: "Supplier Billing <billing@supplier.test>",
      to: inbox,
      subject: "Invoices for November",
      messageId,
      text: "Two invoices attached.",
      attachments: [
        { filename: "first.pdf", content: Buffer.from(first.bytes), contentType: "application/pdf" },
        { filename: "second.pdf", content: Buffer.from(second.bytes), contentType: "application/pdf" },
      ],
    });
    transport.close();
    expect(info.response).to.match(/^250 /);

    const documents = await eventually(
      async () => {
        const listed = await stack.call("GET", `/queues/${queue.body.data.id}/documents`, { token });
        const data = listed.body?.data as Array<{
          file_name: string;
          status: string;
          source: Record<string, unknown>;
          annotations: Array<{ key: string; value: string }>;
        }>;
        return data?.length === 2 && data.every((document) => document.status === "to_validate") ? data : undefined;
      },
      90_000,
      500,
    );
    const byName = Object.fromEntries(documents.map((document) => [document.file_name, document]));
    for (const [name, truth] of [
      ["first.pdf", first],
      ["second.pdf", second],
    ] as const) {
      const document = byName[name]!;
      expect(document.source).to.deep.include({
        channel: "email",
        from: "billing@supplier.test",
        subject: "Invoices for November",
        message_id: messageId.slice(1, -1),
      });
      expect(document.annotations.find((annotation) => annotation.key === "invoice_id")?.value).to.equal(truth.expected.fields.invoice_id);
    }
  });
});
