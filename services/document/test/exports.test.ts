import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { unzipSync } from "fflate";
// The engine from its source, not as a package: extraction's tests depend on document (a real document service), and a
// package dependency back would make a build cycle.
import { extractInvoice } from "../../extraction/src/engine/index.js";
import { Harness, ok, queueFixture, type UserApi } from "./support/harness.js";

/** The engine's header fields and tables (API.md "Document"), so that every format has what it reads. */
const INVOICE_SCHEMA = [
  ...[
    "invoice_id",
    "currency",
    "variable_symbol",
    "iban",
    "bank_account",
    "supplier_name",
    "supplier_tax_id",
    "supplier_register_id",
    "buyer_name",
    "buyer_tax_id",
  ].map((key) => ({ key, label: key, type: "string" })),
  ...["issue_date", "due_date", "taxable_supply_date"].map((key) => ({ key, label: key, type: "date" })),
  ...["total_without_tax", "total_tax", "total_due"].map((key) => ({ key, label: key, type: "number" })),
  {
    key: "tax_details",
    label: "Tax details",
    type: "table",
    columns: ["rate", "base", "tax"].map((key) => ({ key, label: key, type: "number" })),
  },
  {
    key: "line_items",
    label: "Line items",
    type: "table",
    columns: [
      { key: "activity", label: "Activity", type: "string" },
      ...["quantity", "unit_price", "vat_rate", "total_incl_tax"].map((key) => ({ key, label: key, type: "number" })),
    ],
  },
];

/** An invoice with two lines at 21 % and 12 % VAT; `&` and `<` in a name the XML must escape. */
const HEADER: Record<string, string> = {
  invoice_id: "FV-2024-0042",
  issue_date: "2024-03-01",
  due_date: "2024-03-15",
  taxable_supply_date: "2024-03-01",
  currency: "CZK",
  variable_symbol: "20240042",
  iban: "CZ6508000000192000145399",
  supplier_name: "Dodavatel & <Syn> s.r.o.",
  supplier_tax_id: "CZ12345678",
  supplier_register_id: "12345678",
  buyer_name: "Odběratel a.s.",
  buyer_tax_id: "CZ87654321",
  total_without_tax: "3000.00",
  total_tax: "540.00",
  total_due: "3540.00",
};
const LINES = [
  { activity: "Consulting", quantity: "2", unit_price: "1000.00", vat_rate: "21", total_incl_tax: "2420.00" },
  { activity: "Books", quantity: "4", unit_price: "250.00", vat_rate: "12", total_incl_tax: "1120.00" },
];
const TAXES = [
  { rate: "21", base: "2000.00", tax: "420.00" },
  { rate: "12", base: "1000.00", tax: "120.00" },
];

function annotationsOf(header: Record<string, string>) {
  const cells = (row: Record<string, string>) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, { value }]));
  return [
    ...Object.entries(header).map(([key, value]) => ({ key, value })),
    { key: "line_items", value: "", rows: LINES.map(cells) },
    { key: "tax_details", value: "", rows: TAXES.map(cells) },
  ];
}

/** A document with the invoice's annotations, validated and (unless `stopAt`) in ready_to_export. */
async function readyDocument(api: UserApi, queueId: string, header = HEADER, stopAt?: "to_validate"): Promise<string> {
  const uploaded = await ok(api.post(`/queues/${queueId}/documents`, { file_name: "invoice.pdf" }), 201);
  const id = (uploaded.body as { data: { id: string } }).data.id;
  await ok(api.post(`/documents/${id}/extraction`, { annotations: annotationsOf(header), confidence: 95 }));
  if (stopAt !== "to_validate") await ok(api.post(`/documents/${id}/status`, { status: "ready_to_export" }));
  return id;
}

async function fileOf(api: UserApi, runId: string): Promise<{ type: string; bytes: Buffer; disposition: string }> {
  const response = await api.download(`/export-runs/${runId}/file`);
  expect(response.status, await response.clone().text()).to.equal(200);
  return {
    type: response.headers.get("content-type") ?? "",
    bytes: Buffer.from(await response.arrayBuffer()),
    disposition: response.headers.get("content-disposition") ?? "",
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * xmllint's verdict on `xml` against a schema vendored under test/schemas (with its licence); undefined where xmllint
 * (Debian's libxml2-utils, which .ci/run installs) is missing, which fails under CI.
 */
function schemaErrors(xml: Buffer, schema: string): string | undefined {
  const result = spawnSync("xmllint", ["--noout", "--nonet", "--schema", new URL(`schemas/${schema}`, import.meta.url).pathname, "-"], {
    input: xml,
    encoding: "utf8",
    timeout: 20_000,
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    if (process.env.CI) throw new Error("xmllint is missing: .ci/run installs libxml2-utils");
    return undefined;
  }
  return result.status === 0 ? "" : `${result.stderr}`.trim() || `xmllint exited ${result.status}`;
}

/** The values the e-invoice reader gives for a file, as field → value text, and its rows. */
async function readBack(bytes: Buffer) {
  const result = await extractInvoice({ bytes: new Uint8Array(bytes), fileName: "export.xml" });
  const fields = Object.fromEntries(Object.entries(result.fields).map(([key, field]) => [key, field?.value]));
  return { format: result.format, fields, rows: result.lineItems?.rows ?? [] };
}

describe("exports (issue 38)", function () {
  this.timeout(60_000);
  let h: Harness;
  let owner: UserApi;
  let organizationId: string;
  let queueId: string;

  before(async () => {
    h = await Harness.start();
    const fixture = await queueFixture(h, "exports", {
      annotationSchema: INVOICE_SCHEMA,
      workspaceName: "exports",
      queueName: "received invoices",
    });
    ({ owner, queueId } = fixture);
    organizationId = fixture.organization.id;
  });

  after(async () => {
    await h?.stop();
  });

  /** A fresh queue of the organization with the invoice schema, so that one test's on_ready exports do not act on another's. */
  async function newQueue(name: string): Promise<string> {
    const queue = await ok(owner.get(`/queues/${queueId}`));
    const created = await ok(
      owner.post("/queues", {
        workspace_id: (queue.body as { data: { workspace_id: string } }).data.workspace_id,
        name,
        annotation_schema: INVOICE_SCHEMA,
      }),
      201,
    );
    return (created.body as { data: { id: string } }).data.id;
  }

  describe("POST /documents/{id}/export-result", () => {
    it("an integrator's exported moves ready_to_export through exporting to exported, with the external id and an audit trail", async () => {
      const id = await readyDocument(owner, queueId);
      const reply = await ok(owner.post(`/documents/${id}/export-result`, { status: "exported", external_id: "ERP-77" }));
      expect(reply.body).to.nested.include({ "data.status": "exported", "data.external_id": "ERP-77" });
      const { exports } = (reply.body as { data: { exports: Array<Record<string, unknown>> } }).data;
      expect(exports).to.have.length(1);
      expect(exports[0]).to.include({ export_id: null, run_id: null, format: null, status: "exported" });
      const moves = await waitFor("two status events", async () => {
        const found = h.events.ofType("document.status_changed", (event) => event.data.document_id === id);
        return found.length >= 3 ? found : undefined;
      });
      expect(moves.map((event) => [event.data.previous_status, event.data.status])).to.deep.equal([
        ["received", "to_validate"],
        ["to_validate", "ready_to_export"],
        ["ready_to_export", "exporting"],
        ["exporting", "exported"],
      ]);
      expect(moves.every((event) => event.actor_user_id === owner.userId)).to.equal(true);
    });

    it("export_failed keeps the integrator's message as an error message, which does not block a new try", async () => {
      const id = await readyDocument(owner, queueId);
      const failed = await ok(
        owner.post(`/documents/${id}/export-result`, { status: "export_failed", message: "ERP refused: unknown supplier" }),
      );
      expect(failed.body).to.nested.include({ "data.status": "export_failed" });
      expect((failed.body as { data: { messages: unknown[] } }).data.messages).to.deep.include({
        key: null,
        message: "ERP refused: unknown supplier",
        severity: "error",
      });
      const retried = await ok(owner.post(`/documents/${id}/export-result`, { status: "exported", external_id: "ERP-78" }));
      expect(retried.body).to.nested.include({ "data.status": "exported", "data.external_id": "ERP-78" });
      const { messages } = (retried.body as { data: { messages: Array<{ severity: string }> } }).data;
      expect(messages.filter((message) => message.severity === "error")).to.deep.equal([]);
      expect((retried.body as { data: { exports: Array<{ status: string }> } }).data.exports.map((entry) => entry.status)).to.deep.equal([
        "export_failed",
        "exported",
      ]);
    });

    it("refuses a document still in validation (409), a viewer (403), another organization (404) and a bad body (400)", async () => {
      const id = await readyDocument(owner, queueId, HEADER, "to_validate");
      const early = await owner.post(`/documents/${id}/export-result`, { status: "exported" });
      expect(early.status).to.equal(409);
      expect(early.body).to.include({ code: "status_move_not_allowed" });
      const viewer = h.member(organizationId, "viewer");
      expect((await viewer.post(`/documents/${id}/export-result`, { status: "exported" })).status).to.equal(403);
      const stranger = h.organization("stranger").owner;
      expect((await stranger.post(`/documents/${id}/export-result`, { status: "exported" })).status).to.equal(404);
      const bad = await owner.post(`/documents/${id}/export-result`, { status: "sent", external_id: 5 });
      expect(bad.status).to.equal(400);
      expect((bad.body as { errors: Array<{ path: string }> }).errors.map((error) => error.path)).to.include.members([
        "status",
        "external_id",
      ]);
      expect((await ok(owner.get(`/documents/${id}`))).body).to.nested.include({ "data.status": "to_validate", "data.external_id": null });
    });
  });

  describe("export configurations", () => {
    it("owners and the queue's admins configure them, with each format's options checked; editors may not", async () => {
      const admin = h.member(organizationId, "admin", [queueId]);
      const created = await ok(
        admin.post(`/queues/${queueId}/exports`, { name: "Accounting CSV", format: "csv", trigger: "manual", options: { delimiter: "," } }),
        201,
      );
      const exportId = (created.body as { data: { id: string } }).data.id;
      expect(created.headers.get("location")).to.equal(`/api/v2/exports/${exportId}`);
      expect((created.body as { data: { options: { delimiter: string; columns: string[] } } }).data.options.delimiter).to.equal(",");
      expect((created.body as { data: { options: { columns: string[] } } }).data.options.columns).to.include("invoice_id");

      const bad = await owner.post(`/queues/${queueId}/exports`, {
        name: "x",
        format: "csv",
        trigger: "manual",
        options: { delimiter: "::", colour: 1 },
      });
      expect(bad.status).to.equal(400);
      expect((bad.body as { errors: Array<{ path: string }> }).errors.map((error) => error.path)).to.include.members([
        "options.delimiter",
        "options",
      ]);
      expect(
        (await owner.post(`/queues/${queueId}/exports`, { name: "x", format: "ubl", trigger: "manual", options: { columns: [] } })).status,
      ).to.equal(400);

      const editor = h.member(organizationId, "editor");
      expect((await editor.post(`/queues/${queueId}/exports`, { name: "x", format: "json", trigger: "manual" })).status).to.equal(403);
      expect((await editor.get(`/queues/${queueId}/exports`)).status).to.equal(200);
      expect((await h.organization("other").owner.get(`/queues/${queueId}/exports`)).status).to.equal(404);

      const patched = await ok(owner.patch(`/exports/${exportId}`, { name: "Renamed", format: "json" }));
      expect(patched.body).to.nested.include({ "data.name": "Renamed", "data.format": "json" });
      expect((patched.body as { data: { options: unknown } }).data.options).to.deep.equal({});
      expect((await editor.call("DELETE", `/exports/${exportId}`)).status).to.equal(403);
      expect((await owner.call("DELETE", `/exports/${exportId}`)).status).to.equal(204);
      expect((await owner.patch(`/exports/${exportId}`, { name: "gone" })).status).to.equal(404);

      // Each change is configuration.changed (the audit log's), with the export before and after; the refused ones are not.
      const changes = await waitFor("three configuration changes", async () => {
        const found = h.events.ofType("configuration.changed", (event) => event.data.resource_id === exportId);
        return found.length >= 3 ? found : undefined;
      });
      expect(changes.map((event) => [event.data.resource, event.data.change, event.data.queue_id])).to.deep.equal([
        ["export", "created", queueId],
        ["export", "updated", queueId],
        ["export", "deleted", queueId],
      ]);
      expect(changes[0]!.actor_user_id).to.equal(admin.userId);
      expect(changes[1]!.data.previous).to.deep.include({ name: "Accounting CSV", format: "csv" });
      expect(changes[1]!.data.current).to.deep.equal({ name: "Renamed", format: "json", trigger: "manual", options: {} });
      expect(changes[2]!.data.current).to.equal(null);
    });
  });

  describe("on_ready", () => {
    it("a document reaching ready_to_export moves through exporting to exported, and its ISDOC file is stored", async () => {
      const queue = await newQueue("on ready");
      const configured = await ok(owner.post(`/queues/${queue}/exports`, { name: "ISDOC", format: "isdoc", trigger: "on_ready" }), 201);
      const exportId = (configured.body as { data: { id: string } }).data.id;
      const id = await readyDocument(owner, queue);
      const exported = await waitFor("the document exported", async () => {
        const reply = await ok(owner.get(`/documents/${id}`));
        return (reply.body as { data: { status: string } }).data.status === "exported" ? reply.body : undefined;
      });
      const entry = (exported as { data: { exports: Array<{ export_id: string; run_id: string; format: string; status: string }> } }).data
        .exports[0]!;
      expect(entry).to.include({ export_id: exportId, format: "isdoc", status: "exported" });
      const moves = await waitFor("the status events", async () => {
        const statuses = h.events
          .ofType("document.status_changed", (event) => event.data.document_id === id)
          .map((event) => event.data.status);
        return statuses.includes("exported") ? statuses : undefined;
      });
      expect(moves).to.deep.equal(["to_validate", "ready_to_export", "exporting", "exported"]);
      const run = await ok(owner.get(`/export-runs/${entry.run_id}`));
      expect(run.body).to.nested.include({ "data.status": "done", "data.format": "isdoc" });
      const file = await fileOf(owner, entry.run_id);
      const read = await readBack(file.bytes);
      expect(read.fields).to.include({ invoice_id: HEADER.invoice_id, total_due: HEADER.total_due });
    });

    it("a document without what the format needs ends in export_failed with the reason as an error message", async () => {
      const queue = await newQueue("on ready failing");
      await ok(owner.post(`/queues/${queue}/exports`, { name: "UBL", format: "ubl", trigger: "on_ready" }), 201);
      const { currency: _currency, total_due: _total, ...withoutCurrency } = HEADER;
      const id = await readyDocument(owner, queue, withoutCurrency);
      const failed = await waitFor("the export to fail", async () => {
        const reply = await ok(owner.get(`/documents/${id}`));
        return (reply.body as { data: { status: string } }).data.status === "export_failed" ? reply.body : undefined;
      });
      const { messages, exports } = (
        failed as { data: { messages: Array<{ message: string; severity: string }>; exports: Array<{ status: string; run_id: string }> } }
      ).data;
      const error = messages.find((message) => message.severity === "error");
      expect(error?.message).to.match(/UBL export needs currency, total_due/);
      expect(exports[0]).to.include({ status: "export_failed" });
      expect((await ok(owner.get(`/export-runs/${exports[0]!.run_id}`))).body).to.nested.include({ "data.status": "failed" });
      expect((await owner.get(`/export-runs/${exports[0]!.run_id}/file`)).status).to.equal(404);
      // The failure does not block trying again once the document is fixed.
      await ok(owner.post(`/documents/${id}/status`, { status: "to_validate" }));
    });
  });

  describe("manual runs, each format for a document with line items and two VAT rates", () => {
    let exportIds: Record<string, string>;
    let documentId: string;

    before(async () => {
      exportIds = {};
      for (const format of ["csv", "json", "isdoc", "ubl", "pohoda", "money_s3"]) {
        const options =
          format === "csv" ? { columns: ["invoice_id", "supplier_name", "activity", "vat_rate", "total_incl_tax"] } : undefined;
        const created = await ok(
          owner.post(`/queues/${queueId}/exports`, { name: format, format, trigger: "manual", ...(options ? { options } : {}) }),
          201,
        );
        exportIds[format] = (created.body as { data: { id: string } }).data.id;
      }
      documentId = await readyDocument(owner, queueId);
    });

    async function runOf(format: string, ids = [documentId]) {
      const reply = await ok(owner.post(`/exports/${exportIds[format]}/runs`, { document_ids: ids }), 201);
      const run = (reply.body as { data: { id: string; status: string } }).data;
      expect(run.status, JSON.stringify(reply.body)).to.equal("done");
      return { run, file: await fileOf(owner, run.id) };
    }

    it("CSV: a row per line item with the chosen columns, quoted where needed", async () => {
      const { file } = await runOf("csv");
      expect(file.type).to.match(/^text\/csv/);
      const lines = file.bytes.toString("utf8").trimEnd().split("\r\n");
      expect(lines).to.deep.equal([
        "invoice_id;supplier_name;activity;vat_rate;total_incl_tax",
        "FV-2024-0042;Dodavatel & <Syn> s.r.o.;Consulting;21;2420.00",
        "FV-2024-0042;Dodavatel & <Syn> s.r.o.;Books;12;1120.00",
      ]);
      const document = await ok(owner.get(`/documents/${documentId}`));
      expect(document.body).to.nested.include({ "data.status": "exported" });
    });

    it("JSON: the header fields, line items and both VAT rates", async () => {
      const { file } = await runOf("json");
      const parsed = JSON.parse(file.bytes.toString("utf8"));
      expect(parsed.documents).to.have.length(1);
      expect(parsed.documents[0]).to.include({ document_id: documentId, invoice_id: HEADER.invoice_id, total_due: HEADER.total_due });
      expect(parsed.documents[0].line_items).to.have.length(2);
      expect(parsed.documents[0].tax_details).to.deep.equal([
        { rate: 21, base: 2000, tax: 420 },
        { rate: 12, base: 1000, tax: 120 },
      ]);
    });

    it("isdoc: valid against the ISDOC 6.0.2 schema (test/schemas/isdoc-6.0.2, with its licence)", async function () {
      const { file } = await runOf("isdoc");
      const errors = schemaErrors(file.bytes, "isdoc-6.0.2/isdoc-invoice-6.0.2.xsd");
      if (errors === undefined) this.skip();
      expect(errors).to.equal("");
      // The check is real: the same file without its invoice number is refused.
      const broken = Buffer.from(file.bytes.toString("utf8").replace(/<ID>[^<]*<\/ID>/, ""));
      expect(schemaErrors(broken, "isdoc-6.0.2/isdoc-invoice-6.0.2.xsd")).to.match(/ID|expected/);
      // Only what ISDOC cannot do without: no due date, account, buyer or taxable supply date.
      const { due_date: _d, iban: _i, variable_symbol: _v, buyer_name: _b, buyer_tax_id: _t, taxable_supply_date: _s, ...bare } = HEADER;
      const sparse = await readyDocument(owner, queueId, { ...bare, invoice_id: "FV-2024-0099" });
      const { file: sparseFile } = await runOf("isdoc", [sparse]);
      expect(schemaErrors(sparseFile.bytes, "isdoc-6.0.2/isdoc-invoice-6.0.2.xsd")).to.equal("");
    });

    for (const format of ["isdoc", "ubl"] as const) {
      it(`${format}: well-formed, and docex's own e-invoice reader reads back the same values`, async () => {
        const { file } = await runOf(format);
        expect(XMLValidator.validate(file.bytes.toString("utf8"))).to.equal(true);
        const read = await readBack(file.bytes);
        expect(read.format).to.equal(format);
        // Every header value the standard has a place for (the taxable supply date is not read back by the reader).
        for (const [key, value] of Object.entries(HEADER)) {
          if (key !== "taxable_supply_date") expect(read.fields[key], key).to.equal(value);
        }
        expect(read.rows).to.deep.equal(LINES);
      });
    }

    it("pohoda: a received invoice with the supplier as partner, two lines at 21 % and 12 %, and the VAT summary", async () => {
      const { file } = await runOf("pohoda");
      const xml = file.bytes.toString("utf8");
      expect(XMLValidator.validate(xml)).to.equal(true);
      expect(xml).to.include("Dodavatel &amp; &lt;Syn&gt; s.r.o.");
      const parsed = new XMLParser({ removeNSPrefix: true }).parse(xml);
      const invoice = parsed.dataPack.dataPackItem.invoice;
      expect(invoice.invoiceHeader.invoiceType).to.equal("receivedInvoice");
      expect(String(invoice.invoiceHeader.symVar)).to.equal(HEADER.variable_symbol);
      expect(invoice.invoiceHeader.partnerIdentity.address).to.include({ company: HEADER.supplier_name, dic: HEADER.supplier_tax_id });
      expect(invoice.invoiceDetail.invoiceItem.map((item: { rateVAT: string }) => item.rateVAT)).to.deep.equal(["high", "low"]);
      expect(invoice.invoiceSummary.homeCurrency).to.include({ priceHigh: 2000, priceHighVAT: 420, priceLow: 1000, priceLowVAT: 120 });
    });

    it("money_s3: a received invoice (FaktPrij) with the VAT summary by rate and its lines", async () => {
      const { file } = await runOf("money_s3");
      const xml = file.bytes.toString("utf8");
      expect(XMLValidator.validate(xml)).to.equal(true);
      const invoice = new XMLParser().parse(xml).MoneyData.SeznamFaktPrij.FaktPrij;
      expect(invoice).to.include({ PrijatDokl: HEADER.invoice_id, Celkem: 3540 });
      expect(invoice.SouhrnDPH).to.include({ Zaklad22: 2000, DPH22: 420, Zaklad5: 1000, DPH5: 120 });
      expect(invoice.Polozka).to.have.length(2);
    });

    it("a run of two documents in a per-document format is a ZIP of one file each; a document of another queue is 400", async () => {
      const second = await readyDocument(owner, queueId, { ...HEADER, invoice_id: "FV-2024-0043" });
      const { file } = await runOf("ubl", [documentId, second]);
      expect(file.type).to.equal("application/zip");
      const entries = unzipSync(new Uint8Array(file.bytes));
      expect(Object.keys(entries).sort()).to.deep.equal([`${documentId}.xml`, `${second}.xml`].sort());
      const read = await readBack(Buffer.from(entries[`${second}.xml`]!));
      expect(read.fields.invoice_id).to.equal("FV-2024-0043");

      const elsewhere = await newQueue("elsewhere");
      const foreign = await readyDocument(owner, elsewhere);
      const refused = await owner.post(`/exports/${exportIds.ubl}/runs`, { document_ids: [documentId, foreign] });
      expect(refused.status).to.equal(400);
      expect((refused.body as { errors: Array<{ path: string }> }).errors.map((error) => error.path)).to.deep.equal(["document_ids.1"]);
    });
  });

  describe("manual runs by filter", () => {
    it("takes the queue's documents in ready_to_export by default, oldest first; other statuses and dates when asked", async () => {
      const queue = await newQueue("by filter");
      const configured = await ok(owner.post(`/queues/${queue}/exports`, { name: "CSV", format: "csv", trigger: "manual" }), 201);
      const exportId = (configured.body as { data: { id: string } }).data.id;
      const first = await readyDocument(owner, queue);
      const second = await readyDocument(owner, queue, { ...HEADER, invoice_id: "FV-2024-0050" });
      const waiting = await readyDocument(owner, queue, { ...HEADER, invoice_id: "FV-2024-0051" }, "to_validate");

      const run = await ok(owner.post(`/exports/${exportId}/runs`, { filter: {} }), 201);
      expect((run.body as { data: { status: string; document_ids: string[] } }).data).to.deep.include({
        status: "done",
        document_ids: [first, second],
      });
      for (const id of [first, second])
        expect((await ok(owner.get(`/documents/${id}`))).body).to.nested.include({ "data.status": "exported" });
      const csv = (await fileOf(owner, (run.body as { data: { id: string } }).data.id)).bytes.toString("utf8");
      expect(csv).to.include("FV-2024-0050").and.not.include("FV-2024-0051");

      // The exported documents left the default filter: nothing is left to run.
      const none = await owner.post(`/exports/${exportId}/runs`, { filter: {} });
      expect(none.status).to.equal(400);
      expect(none.body).to.include({ code: "no_documents" });

      const today = new Date().toISOString().slice(0, 10);
      const chosen = await ok(
        owner.post(`/exports/${exportId}/runs`, { filter: { status: ["to_validate"], created_from: today, created_to: today } }),
        201,
      );
      expect((chosen.body as { data: { document_ids: string[] } }).data.document_ids).to.deep.equal([waiting]);
      expect((await ok(owner.get(`/documents/${waiting}`))).body).to.nested.include({ "data.status": "to_validate" });
      const later = await owner.post(`/exports/${exportId}/runs`, { filter: { status: "exported", created_from: "2999-01-01" } });
      expect(later.status).to.equal(400);

      for (const body of [
        { filter: { status: "deleted" } },
        { filter: { created_from: "yesterday" } },
        { filter: { created_from: "2024-02-02", created_to: "2024-02-01" } },
        { filter: { colour: "red" } },
        { filter: {}, document_ids: [first] },
        {},
      ]) {
        const bad = await owner.post(`/exports/${exportId}/runs`, body);
        expect(bad.status, JSON.stringify(body)).to.equal(400);
      }
      const viewer = h.member(organizationId, "viewer");
      expect((await viewer.post(`/exports/${exportId}/runs`, { filter: {} })).status).to.equal(403);
    });
  });
});
