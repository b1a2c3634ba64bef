import { eventually } from "@docex/testkit";
import { buildInvoiceCorpus, type CorpusDocument } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { FaultStack, STACK_PROCESS_NAMES } from "./support/fault-stack.js";
import { NatsServerProcess } from "./support/nats-server-process.js";
import { sleep } from "./support/status-burst.js";

/**
 * The extraction service is SIGKILLed while it reads a document and started again: the document, and those uploaded
 * while it was down, are extracted after the restart, each exactly once (one `document.extracted` in its audit log).
 */
describe("faults: the extraction service SIGKILLed mid-document (the stack's processes, own NATS, shared Postgres)", function () {
  this.timeout(300_000);
  let nats: NatsServerProcess | undefined;
  let stack: FaultStack | undefined;
  const killLeftovers = () => {
    stack?.killNow();
    nats?.killNow();
  };

  before(async function () {
    this.timeout(300_000);
    process.once("exit", killLeftovers);
    nats = await NatsServerProcess.start();
    stack = await FaultStack.start({
      nats,
      // The redelivery of an event a killed replica held comes after its ack wait (these two deadlines plus 30 s);
      // the production values (60 s each) would only make the suite slower.
      env: { EXTRACTION_TIMEOUT_MS: "5000", EXTRACTION_READ_DEADLINE_MS: "5000" },
    });
  });

  afterEach(function () {
    if (this.currentTest?.state !== "failed" || !stack) return;
    process.stdout.write(`\n${STACK_PROCESS_NAMES.map((name) => stack!.logTail(name, 20)).join("\n")}\n`);
  });

  after(async function () {
    this.timeout(120_000);
    await stack?.dispose();
    await nats?.dispose();
    process.off("exit", killLeftovers);
  });

  it("extracts the document it was reading, and those uploaded while it was down, once each after the restart", async () => {
    const token = await stack!.login();
    const call = (method: string, path: string, body?: unknown) => stack!.call(method, path, { token, body });
    const workspace = await eventually(async () => {
      const answer = await call("POST", "/workspaces", { organization_id: "bootstrap", name: "Extraction faults" });
      return answer.status === 201 ? answer.body.data : undefined;
    }, 30_000);
    const queue = await call("POST", "/queues", { workspace_id: workspace.id, name: "Inbox" });
    expect(queue.status, JSON.stringify(queue.body)).to.equal(201);
    const queueId: string = queue.body.data.id;

    const upload = async (document: CorpusDocument): Promise<string> => {
      const form = new FormData();
      form.set("file", new Blob([document.bytes]), document.name);
      const response = await fetch(`${stack!.gateway}/api/v2/queues/${queueId}/documents`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await response.json()) as { data: { id: string } };
      expect(response.status, JSON.stringify(body)).to.equal(201);
      return body.data.id;
    };
    const statusOf = async (documentId: string): Promise<string> => (await call("GET", `/documents/${documentId}`)).body.data.status;

    // A scan keeps the engine busy for most of a second (OCR: 0.7 s on a quiet 2-core machine, more under load) where
    // Tesseract is installed; else a text PDF, read in ~100 ms. The kill comes 250 ms after the upload's answer: the
    // event reaches the engine within tens of milliseconds, so the scan is being read (or, on a very busy machine,
    // not yet taken), never already read, as a 700 ms wait once allowed on a quiet machine.
    const corpus = await buildInvoiceCorpus({ einvoices: 1, textPdfs: 2, scans: 2, offset: 9_000 });
    const first = corpus.find((document) => document.format === "scan_png") ?? corpus.find((document) => document.format === "pdf_text")!;
    const later = corpus.filter((document) => document.format === "pdf_text" || document.format === "isdoc").slice(0, 3);

    const readWhenKilled = await upload(first);
    await sleep(first.format === "scan_png" ? 250 : 30);
    await stack!.kill("extraction", "SIGKILL");
    const statusWhenKilled = await statusOf(readWhenKilled);
    const uploadedWhileDown = [];
    for (const document of later) uploadedWhileDown.push(await upload(document));
    await sleep(1_000);
    stack!.restart("extraction");

    const all = [readWhenKilled, ...uploadedWhileDown];
    const documents = await eventually(
      async () => {
        const answers = await Promise.all(all.map(async (id) => (await call("GET", `/documents/${id}`)).body.data));
        return answers.every((document) => document.status === "to_validate") ? answers : undefined;
      },
      120_000,
      500,
    );
    for (const [index, document] of documents.entries()) {
      const expected = [first, ...later][index]!;
      const invoiceId = (document.annotations as { key: string; value: string }[]).find((annotation) => annotation.key === "invoice_id");
      if (expected.format !== "scan_png") expect(invoiceId?.value, expected.name).to.equal(expected.expected.fields.invoice_id);
    }
    // Exactly once: one extraction recorded per document, whatever was redelivered.
    for (const documentId of all) {
      const extracted = await eventually(async () => {
        const answer = await call("GET", `/documents/${documentId}/audit-log?type=document.extracted&page_size=10`);
        return answer.status === 200 && answer.body.data.length > 0 ? answer.body.data : undefined;
      }, 30_000);
      await sleep(200);
      const again = await call("GET", `/documents/${documentId}/audit-log?type=document.extracted&page_size=10`);
      expect(again.body.data, `document.extracted of ${documentId}`).to.have.length(1);
      expect(extracted).to.have.length(1);
    }
    if (first.format === "scan_png")
      expect(statusWhenKilled, "the scan was still being read when the service was killed").to.not.equal("to_validate");
    expect(stack!.unexpectedExits, "processes that exited by themselves").to.deep.equal([]);
  });
});
