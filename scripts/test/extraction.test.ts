import { createHash } from "node:crypto";
import { eventually, RecordingReceiver } from "@docex/testkit";
import { badInvoiceFiles, buildInvoiceCorpus, type CorpusDocument, invoicePdf, isdocXml, makeInvoice } from "@docex/testkit/invoice-corpus";
import { MULTILINGUAL_INVOICES, placedPdf } from "@docex/testkit/multilingual-invoices";
import { expect } from "chai";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { type Stack, sharedStack } from "./support/stack.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("built-in extraction through the gateway (npm start, real Postgres and NATS)", function () {
  this.timeout(120_000);
  let stack: Stack;
  let token = "";
  let corpus: CorpusDocument[];

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    corpus = await buildInvoiceCorpus({ einvoices: 1, textPdfs: 3, offset: 4_000 });
  });

  async function queue(engine?: "builtin" | "external"): Promise<string> {
    const workspace = await stack.call("POST", "/workspaces", { token, body: { organization_id: "bootstrap", name: "Extraction" } });
    expect(workspace.status, JSON.stringify(workspace.body)).to.equal(201);
    const created = await stack.call("POST", "/queues", {
      token,
      body: { workspace_id: workspace.body.data.id, name: "Inbox", ...(engine ? { extraction_engine: engine } : {}) },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.data.id;
  }

  async function upload(queueId: string, document: CorpusDocument): Promise<string> {
    const form = new FormData();
    form.set("file", new Blob([document.bytes]), document.name);
    const response = await fetch(`${stack.gateway}/api/v2/queues/${queueId}/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const body = (await response.json()) as { data: { id: string } };
    expect(response.status, JSON.stringify(body)).to.equal(201);
    return body.data.id;
  }

  // A bad file may use the engine's whole EXTRACTION_TIMEOUT_MS (60 s) before it is given up: its wait is longer.
  async function documentWhen(documentId: string, status: string | string[], withinMs = 60_000) {
    const statuses = Array.isArray(status) ? status : [status];
    return eventually(
      async () => {
        const answer = await stack.call("GET", `/documents/${documentId}`, { token });
        return statuses.includes(answer.body.data?.status) ? answer.body.data : undefined;
      },
      withinMs,
      250,
    );
  }

  it("uploads a PDF (multipart), keeps its bytes, reaches to_validate with the PDF's fields and their source; the queue's webhook hears it", async () => {
    const queueId = await queue();
    const receiver = await RecordingReceiver.start();
    try {
      const webhook = await stack.call("POST", "/webhooks", {
        token,
        body: { url: `${receiver.url}/events`, entity_type: "queue", entity_id: queueId },
      });
      expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
      const pdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
      const documentId = await upload(queueId, pdf);
      const file = await fetch(`${stack.gateway}/api/v2/documents/${documentId}/file`, { headers: { authorization: `Bearer ${token}` } });
      expect(file.status).to.equal(200);
      expect(sha256(new Uint8Array(await file.arrayBuffer()))).to.equal(sha256(pdf.bytes));
      const document = await documentWhen(documentId, "to_validate");
      // biome-ignore lint/suspicious/noExplicitAny: annotations are asserted field by field
      const byKey: Record<string, any> = Object.fromEntries(
        (document.annotations as { key: string }[]).map((annotation) => [annotation.key, annotation]),
      );
      for (const key of ["invoice_id", "iban", "supplier_tax_id", "total_due", "due_date"]) {
        expect(byKey[key], key).to.include({ value: pdf.expected.fields[key], source: "builtin:pdf_text" });
        // Where the page shows it (the engine's test reads the words under the box back): page 1, a box on the page.
        const { page, box } = (byKey[key] as { position?: { page: number; box: number[] } }).position ?? { page: 0, box: [] };
        expect(page, `${key} position`).to.equal(1);
        const [left = -1, top = -1, right = -1, bottom = -1] = box;
        expect(0 <= left && left < right && right <= 1 && 0 <= top && top < bottom && bottom <= 1, `${key} box ${box}`).to.equal(true);
      }
      // The pages API through the gateway: the page, the words under invoice_id's box read it, the image and its ETag.
      const pages = await stack.call("GET", `/documents/${documentId}/pages`, { token });
      expect(pages.status).to.equal(200);
      expect(pages.body.data).to.have.length(1);
      const words = await stack.call("GET", `/documents/${documentId}/pages/1/words`, { token });
      const [left, top, right, bottom] = byKey.invoice_id.position.box as number[];
      const under = (words.body.data as { text: string; box: [number, number, number, number] }[]).filter(
        ({ box: [l = 0, t = 0, r = 0, b = 0] }) => {
          const [x, y] = [(l + r) / 2, (t + b) / 2];
          return x >= left! && x <= right! && y >= top! && y <= bottom!;
        },
      );
      expect(under.map((word) => word.text).join(" ")).to.equal(pdf.expected.fields.invoice_id);
      const image = await fetch(`${stack.gateway}/api/v2/documents/${documentId}/pages/1?width=600`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(image.status).to.equal(200);
      expect(image.headers.get("content-type")).to.equal("image/png");
      const again = await fetch(`${stack.gateway}/api/v2/documents/${documentId}/pages/1?width=600`, {
        headers: { authorization: `Bearer ${token}`, "if-none-match": image.headers.get("etag") ?? "" },
      });
      expect(again.status).to.equal(304);
      await eventually(
        () => receiver.requests.find((request) => request.rawBody.includes(documentId) && request.rawBody.includes("to_validate")),
        30_000,
      );
    } finally {
      await receiver.stop();
    }
  });

  it("reads text PDFs in French, Dutch, Polish and Slovak layouts its own generator never makes, each value's box on the printed value", async () => {
    const queueId = await queue();
    /**
     * A text's letters and digits but zeros, sorted: the same for "5. 3. 2026" and "2026-03-05", "1 000,00" and
     * "1000.00" (a date's or an amount's padding zeros are how it is printed, not what it says).
     */
    const shape = (text: string) => [...text.toLowerCase().replace(/[^\p{L}\p{N}]|0/gu, "")].sort().join("");
    for (const invoice of MULTILINGUAL_INVOICES) {
      const documentId = await upload(queueId, {
        name: `${invoice.language}.pdf`,
        bytes: await placedPdf(invoice.placed),
      } as CorpusDocument);
      const document = await documentWhen(documentId, "to_validate");
      type Read = { key: string; value: string; source: string; position?: { page: number; box: [number, number, number, number] } };
      const byKey = Object.fromEntries((document.annotations as Read[]).map((annotation) => [annotation.key, annotation]));
      const pages = new Map<number, { text: string; box: [number, number, number, number] }[]>();
      for (const [key, value] of Object.entries(invoice.expected)) {
        const read = byKey[key];
        expect(read, `${invoice.language} ${key}`).to.include({ value, source: "builtin:pdf_text" });
        const position = read?.position;
        if (!position) throw new Error(`${invoice.language} ${key}: no position`);
        if (!pages.has(position.page)) {
          const words = await stack.call("GET", `/documents/${documentId}/pages/${position.page}/words`, { token });
          expect(words.status).to.equal(200);
          pages.set(position.page, words.body.data);
        }
        // The words whose centre is inside the box read the value (a currency code or symbol beside it may be in too).
        const [left, top, right, bottom] = position.box;
        const under = (pages.get(position.page) ?? [])
          .filter(
            ({ box }) =>
              (box[0] + box[2]) / 2 >= left &&
              (box[0] + box[2]) / 2 <= right &&
              (box[1] + box[3]) / 2 >= top &&
              (box[1] + box[3]) / 2 <= bottom,
          )
          .map((word) => word.text)
          .join(" ");
        if (key === "currency") continue;
        expect(shape(under.replace(/\b(eur|pln|zl|czk)\b|€/giu, "")), `${invoice.language} ${key}: "${under}"`).to.equal(shape(value));
      }
    }
  });

  it("leaves a value it is unsure of empty and says on its field what it read: a date that could be either way round", async () => {
    const queueId = await queue();
    const documentId = await upload(queueId, {
      name: "ambiguous-date.pdf",
      bytes: await placedPdf([
        ["Invoice", 70, 60, 18],
        ["Invoice number", 70, 100],
        ["INV-77", 200, 100],
        ["Invoice date", 70, 118],
        ["03/04/2024", 200, 118],
        ["Amount due", 70, 150],
        ["1,250.00 EUR", 200, 150],
      ]),
    } as CorpusDocument);
    const document = await documentWhen(documentId, "to_validate");
    const read = Object.fromEntries((document.annotations as { key: string; value: string }[]).map((entry) => [entry.key, entry.value]));
    expect(read).to.include({ invoice_id: "INV-77", total_due: "1250.00" });
    expect(read).to.not.have.property("issue_date");
    const said = (document.messages as { key: string | null; message: string; severity: string }[]).filter(
      (message) => message.key === "issue_date",
    );
    expect(said, JSON.stringify(document.messages)).to.have.length(1);
    expect(said[0]?.severity).to.equal("info");
    expect(said[0]?.message).to.match(/^Read as "2024-04-03" with a confidence of \d+ %, too little to fill it in/);
  });

  it("reads an e-invoice of each format exactly, line items included", async () => {
    const queueId = await queue();
    for (const einvoice of corpus.filter((document) => !["pdf_text"].includes(document.format))) {
      const documentId = await upload(queueId, einvoice);
      const document = await documentWhen(documentId, "to_validate");
      const byKey = Object.fromEntries((document.annotations as { key: string }[]).map((annotation) => [annotation.key, annotation]));
      for (const key of ["invoice_id", "supplier_name", "supplier_tax_id", "supplier_register_id", "iban", "total_due", "due_date"]) {
        expect(byKey[key], `${einvoice.name} ${key}`).to.include({ value: einvoice.expected.fields[key], source: "builtin:einvoice" });
        expect(byKey[key], `${einvoice.name} ${key}: read from XML, no page position`).to.not.have.property("position");
      }
      const rows = (byKey.line_items as unknown as { rows: Record<string, { value: string }>[] }).rows;
      expect(
        rows.map((row) => [row.activity?.value, row.total_incl_tax?.value]),
        einvoice.name,
      ).to.deep.equal(einvoice.expected.rows.map((row) => [row.activity, row.total_incl_tax]));
    }
  });

  it("brings each hostile or broken file to to_validate, or to extraction_failed where it stopped its reader, with a message saying why, and keeps reading good files", async function () {
    this.timeout(900_000);
    const queueId = await queue();
    for (const bad of await badInvoiceFiles()) {
      const documentId = await upload(queueId, { name: bad.name, bytes: bad.bytes } as CorpusDocument);
      // The content-stream bomb stops its reader at the memory cap (extraction_failed) or is read within it.
      const ends = bad.name === "bomb.pdf" ? ["to_validate", "extraction_failed"] : ["to_validate"];
      const document = await documentWhen(documentId, ends, 120_000);
      const said = (document.messages as { message: string }[]).map((message) => message.message).join(" ");
      expect(said, bad.name).to.match(bad.message);
      if (bad.name === "xxe.isdoc") expect(JSON.stringify(document)).not.to.contain("root:");
    }
    const good = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
    const document = await documentWhen(await upload(queueId, good), "to_validate");
    expect(document.annotations.find((annotation: { key: string }) => annotation.key === "invoice_id").value).to.equal(
      good.expected.fields.invoice_id,
    );
  });

  it("leaves a document of an external-engine queue alone until an outside engine posts its extraction", async () => {
    const queueId = await queue("external");
    const documentId = await upload(queueId, corpus.find((document) => document.format === "pdf_text") as CorpusDocument);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const waiting = await stack.call("GET", `/documents/${documentId}`, { token });
    expect(waiting.body.data.status).to.not.equal("to_validate");
    expect(waiting.body.data.annotations).to.deep.equal([]);
    const posted = await stack.call("POST", `/documents/${documentId}/extraction`, {
      token,
      body: { annotations: [{ key: "invoice_id", value: "OUTSIDE-1" }], confidence: 50 },
    });
    expect(posted.status, JSON.stringify(posted.body)).to.be.oneOf([200, 201, 202]);
    const document = await documentWhen(documentId, "to_validate");
    expect(document.annotations.find((annotation: { key: string }) => annotation.key === "invoice_id").value).to.equal("OUTSIDE-1");
  });

  it("corrects the second invoice of a supplier with what a user taught on the first (learn)", async () => {
    const queueId = await queue();
    const first = makeInvoice(4_100, "cs");
    const second = { ...makeInvoice(4_101, "cs"), supplier: first.supplier };
    const asDocument = async (truth: typeof first, name: string) =>
      ({ name, bytes: await (await invoicePdf(truth, "cs", "columns")).save() }) as CorpusDocument;
    const firstId = await upload(queueId, await asDocument(first, "first.pdf"));
    await documentWhen(firstId, "to_validate");
    const corrected = `${first.supplier.name} (headquarters)`;
    const learned = await stack.call("POST", `/documents/${firstId}/learn`, {
      token,
      body: {
        annotations: {
          supplier_name: [{ value: corrected }],
          supplier_tax_id: [{ value: first.supplier.taxId }],
          supplier_register_id: [{ value: first.supplier.registerId }],
        },
      },
    });
    expect(learned.status, JSON.stringify(learned.body)).to.equal(204);
    const secondId = await upload(queueId, await asDocument(second, "second.pdf"));
    const document = await eventually(
      async () => {
        const answer = await stack.call("GET", `/documents/${secondId}`, { token });
        const name = answer.body.data?.annotations?.find((annotation: { key: string }) => annotation.key === "supplier_name");
        return name?.value === corrected ? answer.body.data : undefined;
      },
      60_000,
      250,
    );
    const byKey = Object.fromEntries((document.annotations as { key: string }[]).map((annotation) => [annotation.key, annotation]));
    expect(byKey.supplier_name).to.include({ value: corrected, source: "learned" });
    // What differs per invoice stays as read.
    expect(byKey.invoice_id).to.include({ value: second.invoiceId, source: "builtin:pdf_text" });
  });

  it("learns where a supplier prints each field from a validation: its next invoice of a layout the engine does not know is read from there", async () => {
    const queueId = await queue();
    // A layout in a language the engine has no labels for (Hungarian), the values far right of their labels.
    const invoice = async (number: string, issued: string, due: string, total: string, name: string) => {
      const pdf = await PDFDocument.create();
      const page = pdf.addPage([595, 842]);
      const font = await pdf.embedFont(StandardFonts.Helvetica);
      const line = (text: string, x: number, y: number) => page.drawText(text, { x, y, size: 10, font });
      line("Lendulet Szolgaltato Kft.", 50, 790);
      line("DIC: CZ64610080", 50, 776);
      line("Szamla sorszama", 50, 700);
      line(number, 330, 700);
      line("Kelt", 50, 684);
      line(issued, 330, 684);
      line("Fizetesi hatarido", 50, 668);
      line(due, 330, 668);
      line("Vevo", 50, 620);
      line(name, 330, 620);
      line("Fizetendo", 50, 560);
      line(`${total} EUR`, 330, 560);
      return { name: `${number}.pdf`, bytes: await pdf.save() } as CorpusDocument;
    };
    const validatedBefore = await consumedValidations();
    const firstId = await upload(queueId, await invoice("HU-2026-0042", "03.11.2026", "17.11.2026", "12 345,60", "Vevo Alfa Zrt."));
    await documentWhen(firstId, "to_validate");
    // The person types what the engine could not read (no positions: typed values), and confirms.
    const typed = { invoice_id: "HU-2026-0042", issue_date: "2026-11-03", due_date: "2026-11-17", total_due: "12345.60" };
    const patched = await stack.call("PATCH", `/documents/${firstId}/annotations`, {
      token,
      body: { annotations: Object.entries(typed).map(([key, value]) => ({ key, value })) },
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    const confirmed = await stack.call("POST", `/documents/${firstId}/status`, { token, body: { status: "ready_to_export" } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    await eventually(async () => ((await consumedValidations()) > validatedBefore + 1 ? true : undefined), 30_000, 200);

    const secondId = await upload(queueId, await invoice("HU-2026-0107", "24.11.2026", "08.12.2026", "980,00", "Vevo Beta Kft."));
    const document = await documentWhen(secondId, "to_validate");
    type Read = {
      key: string;
      value: string;
      source: string;
      confidence: number;
      position: { page: number; box: [number, number, number, number] };
    };
    const byKey = Object.fromEntries((document.annotations as Read[]).map((annotation) => [annotation.key, annotation]));
    const expected = { invoice_id: "HU-2026-0107", issue_date: "2026-11-24", due_date: "2026-12-08", total_due: "980.00" };
    for (const [key, value] of Object.entries(expected)) {
      const read = byKey[key] as Read;
      expect(read, key).to.include({ value, source: "builtin:layout" });
      // One confirmation: a measured, not a certain, probability (the rule of succession: 2 in 3).
      expect(read.confidence, key).to.equal(67);
      const words = await stack.call("GET", `/documents/${secondId}/pages/${read.position.page}/words`, { token });
      const [left, top, right, bottom] = read.position.box;
      const under = (words.body.data as { text: string; box: [number, number, number, number] }[])
        .filter(({ box }) => box[0] >= left - 0.002 && box[2] <= right + 0.002 && box[1] >= top - 0.002 && box[3] <= bottom + 0.002)
        .map((word) => word.text)
        .join(" ");
      expect(under, key).to.not.equal("");
    }
  });

  /** How many document.status_changed events extraction's layout learning has handled, from its metrics. */
  async function consumedValidations(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${8088 + stack.portOffset}/metrics`)).text();
    const line = text
      .split("\n")
      .find((candidate) => candidate.includes('consumer="extraction__document_validated"') && candidate.includes('outcome="ok"'));
    return line ? Number(line.split(" ").pop()) : 0;
  }

  it("exports what it read (issue 38): on_ready ISDOC read back by docex, a manual CSV run, an integrator's export-result, a SEPA batch", async () => {
    const download = async (path: string) => {
      const response = await fetch(`${stack.gateway}/api/v2${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, path).to.equal(200);
      return { type: response.headers.get("content-type") ?? "", bytes: new Uint8Array(await response.arrayBuffer()) };
    };
    const created = async (path: string, body: unknown) => {
      const answer = await stack.call("POST", path, { token, body });
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).to.equal(201);
      return answer;
    };
    const fieldsOf = (document: { annotations: { key: string; value: string }[] }) =>
      Object.fromEntries(document.annotations.map((annotation) => [annotation.key, annotation.value]));
    const toReady = async (documentId: string) => {
      const moved = await stack.call("POST", `/documents/${documentId}/status`, { token, body: { status: "ready_to_export" } });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    };

    // A German supplier's ISDOC in EUR: the on_ready export makes ISDOC of what the engine read.
    const queueId = await queue();
    const isdoc = (await created(`/queues/${queueId}/exports`, { name: "ERP", format: "isdoc", trigger: "on_ready" })).body.data;
    const csv = (await created(`/queues/${queueId}/exports`, { name: "Sheet", format: "csv", trigger: "manual" })).body.data;
    const truth = makeInvoice(4_200, "de");
    const documentId = await upload(queueId, { name: "supplier.isdoc", bytes: isdocXml(truth) } as CorpusDocument);
    const read = fieldsOf(await documentWhen(documentId, "to_validate"));
    expect(read).to.include({ invoice_id: truth.invoiceId, currency: "EUR", iban: truth.supplier.iban });
    await toReady(documentId);
    const exported = await documentWhen(documentId, "exported", 15_000);
    expect(exported.exports).to.have.length(1);
    expect(exported.exports[0]).to.include({ export_id: isdoc.id, format: "isdoc", status: "exported" });
    const run = await stack.call("GET", `/export-runs/${exported.exports[0].run_id}`, { token });
    expect(run.body.data).to.include({ status: "done", format: "isdoc" });
    const file = await download(`/export-runs/${exported.exports[0].run_id}/file`);
    expect(file.type).to.match(/^application\/xml/);

    // The exported file read back by docex's own reader: uploaded to a queue without exports, the same values.
    const inbox = await queue();
    const copyId = await upload(inbox, { name: "exported.isdoc", bytes: file.bytes } as CorpusDocument);
    const reread = fieldsOf(await documentWhen(copyId, "to_validate"));
    for (const key of ["invoice_id", "issue_date", "due_date", "total_due", "currency", "iban", "variable_symbol", "supplier_tax_id"]) {
      expect(reread[key], key).to.equal(read[key]);
    }

    // An integrator that pushed the copy to its ERP itself records the outcome.
    await toReady(copyId);
    const result = await stack.call("POST", `/documents/${copyId}/export-result`, {
      token,
      body: { status: "exported", external_id: "ERP-4200" },
    });
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    expect(result.body.data).to.include({ status: "exported", external_id: "ERP-4200" });

    // A manual CSV run of the exported document: one row with what was read.
    const csvRun = (await created(`/exports/${csv.id}/runs`, { document_ids: [documentId] })).body.data;
    expect(csvRun.status).to.equal("done");
    const rows = Buffer.from((await download(`/export-runs/${csvRun.id}/file`)).bytes)
      .toString("utf8")
      .trimEnd()
      .split("\r\n");
    expect(rows).to.have.length(2);
    expect(rows[1]).to.include(truth.invoiceId);

    // A SEPA batch pays it: the supplier's IBAN, the amount, the variable symbol as remittance information.
    const batch = await created(`/queues/${queueId}/payment-batches`, {
      document_ids: [documentId],
      format: "sepa",
      debtor_account: "CZ6508000000192000145399",
      execution_date: "2030-01-15",
    });
    expect(batch.body.data.document_ids).to.deep.equal([documentId]);
    expect(batch.body.data.total).to.equal(Number(read.total_due));
    const location = batch.headers.get("location") ?? "";
    expect((await stack.call("GET", location.replace("/api/v2", ""), { token })).body.data).to.deep.equal(batch.body.data);
    const sepa = Buffer.from((await download(`/payment-batches/${batch.body.data.id}/file`)).bytes).toString("utf8");
    expect(sepa).to.include('xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"');
    expect(sepa).to.include(`<IBAN>${truth.supplier.iban}</IBAN>`);
    expect(sepa).to.include(`<InstdAmt Ccy="EUR">${read.total_due}</InstdAmt>`);
    expect(sepa).to.include(`<Ustrd>${read.variable_symbol}</Ustrd>`);
  });
});
