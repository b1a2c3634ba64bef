import { expect } from "chai";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { Harness, ok, queueFixture, type UserApi } from "./support/harness.js";

const SCHEMA = [
  ...["invoice_id", "currency", "variable_symbol", "iban", "bank_account", "supplier_name", "supplier_tax_id", "buyer_name"].map((key) => ({
    key,
    label: key,
    type: "string",
  })),
  { key: "due_date", label: "Due date", type: "date" },
  { key: "total_due", label: "Total due", type: "number" },
];

const EUR_INVOICE: Record<string, string> = {
  invoice_id: "INV-EU-1",
  currency: "EUR",
  variable_symbol: "7001",
  iban: "DE89370400440532013000",
  supplier_name: "Lieferant GmbH",
  supplier_tax_id: "DE123456789",
  buyer_name: "Odberatel a.s.",
  due_date: "2024-04-30",
  total_due: "1210.50",
};

describe("payment batches (issue 38)", function () {
  this.timeout(60_000);
  let h: Harness;
  let owner: UserApi;
  let organizationId: string;
  let queueId: string;

  before(async () => {
    h = await Harness.start();
    const fixture = await queueFixture(h, "payments", { annotationSchema: SCHEMA, workspaceName: "payments", queueName: "bills" });
    ({ owner, queueId } = fixture);
    organizationId = fixture.organization.id;
  });

  after(async () => {
    await h?.stop();
  });

  async function documentWith(fields: Record<string, string>): Promise<string> {
    const uploaded = await ok(owner.post(`/queues/${queueId}/documents`, { file_name: "bill.pdf" }), 201);
    const annotations = Object.entries(fields).map(([key, value]) => ({ key, value }));
    await ok(owner.post(`/documents/${uploaded.body.data.id}/extraction`, { annotations, confidence: 90 }));
    return uploaded.body.data.id;
  }

  async function file(batchId: string): Promise<string> {
    const response = await owner.download(`/payment-batches/${batchId}/file`);
    expect(response.status).to.equal(200);
    return response.text();
  }

  it("SEPA: pays what has an account, an amount and a due date; duplicates, incomplete and already batched documents are left out", async () => {
    const paid = await documentWith(EUR_INVOICE);
    const duplicate = await documentWith(EUR_INVOICE);
    const { due_date: _due, ...noDueDate } = EUR_INVOICE;
    const undated = await documentWith({ ...noDueDate, invoice_id: "INV-EU-2" });
    const { iban: _iban, ...noIban } = EUR_INVOICE;
    const unpayable = await documentWith({ ...noIban, invoice_id: "INV-EU-3" });
    const crowns = await documentWith({ ...EUR_INVOICE, invoice_id: "INV-EU-4", currency: "CZK" });

    const body = { format: "sepa", debtor_account: "CZ65 0800 0000 1920 0014 5399", execution_date: "2024-04-25" };
    const reply = await ok(
      owner.post(`/queues/${queueId}/payment-batches`, { ...body, document_ids: [paid, duplicate, undated, unpayable, crowns] }),
      201,
    );
    expect(reply.body.data).to.include({ format: "sepa", total: 1210.5, queue_id: queueId, execution_date: "2024-04-25" });
    expect(reply.headers.get("location")).to.equal(`/api/v2/payment-batches/${reply.body.data.id}`);
    const read = await ok(owner.get(`/payment-batches/${reply.body.data.id}`));
    expect(read.body.data).to.deep.equal(reply.body.data);
    expect((await h.organization("payments-stranger").owner.get(`/payment-batches/${reply.body.data.id}`)).status).to.equal(404);
    expect((await owner.get("/payment-batches/not-a-uuid")).status).to.equal(404);
    expect(reply.body.data.document_ids).to.deep.equal([paid]);
    expect(reply.body.data.left_out).to.deep.equal([
      { document_id: duplicate, reason: "duplicate" },
      { document_id: undated, reason: "no_due_date" },
      { document_id: unpayable, reason: "no_account" },
      { document_id: crowns, reason: "currency_not_eur" },
    ]);

    const xml = await file(reply.body.data.id);
    expect(XMLValidator.validate(xml)).to.equal(true);
    const document = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" }).parse(xml).Document;
    expect(document["@xmlns"]).to.equal("urn:iso:std:iso:20022:tech:xsd:pain.001.001.09");
    const { GrpHdr, PmtInf } = document.CstmrCdtTrfInitn;
    expect(GrpHdr).to.include({ NbOfTxs: 1, CtrlSum: 1210.5 });
    expect(PmtInf).to.include({ PmtMtd: "TRF", ChrgBr: "SLEV" });
    expect(PmtInf.ReqdExctnDt.Dt).to.equal("2024-04-25");
    expect(PmtInf.DbtrAcct.Id.IBAN).to.equal("CZ6508000000192000145399");
    const transfer = PmtInf.CdtTrfTxInf;
    expect(transfer.Amt.InstdAmt).to.deep.equal({ "@Ccy": "EUR", "#text": 1210.5 });
    expect(xml).to.include('<InstdAmt Ccy="EUR">1210.50</InstdAmt>');
    expect(transfer.CdtrAcct.Id.IBAN).to.equal(EUR_INVOICE.iban);
    expect(String(transfer.RmtInf.Ustrd)).to.equal(EUR_INVOICE.variable_symbol);

    const again = await ok(owner.post(`/queues/${queueId}/payment-batches`, { ...body, document_ids: [paid] }), 201);
    expect(again.body.data.document_ids).to.deep.equal([]);
    expect(again.body.data.left_out).to.deep.equal([{ document_id: paid, reason: "already_in_batch" }]);
  });

  it("ABO: a Czech order with the variable symbol; bad accounts and bodies are 400, editors 403, strangers 404", async () => {
    const id = await documentWith({
      invoice_id: "FV-9",
      currency: "CZK",
      variable_symbol: "20249",
      bank_account: "19-2000145399/0800",
      supplier_name: "Dodavatel s.r.o.",
      due_date: "2024-05-02",
      total_due: "2420",
    });
    const reply = await ok(
      owner.post(`/queues/${queueId}/payment-batches`, {
        format: "abo",
        debtor_account: "2400123456/2010",
        execution_date: "2024-05-01",
        document_ids: [id],
      }),
      201,
    );
    expect(reply.body.data.document_ids).to.deep.equal([id]);
    const lines = (await file(reply.body.data.id)).trimEnd().split("\r\n");
    expect(lines[0]).to.match(/^UHL1\d{6}/);
    expect(lines[1]).to.equal("1 1501 001000 2010");
    expect(lines[2]).to.equal("2 000000-2400123456 000000000242000 010524");
    expect(lines[3]).to.equal("000019-2000145399 000000000242000 0000020249 08000000 0000000000");
    expect(lines.slice(4)).to.deep.equal(["3 +", "5 +"]);

    const bad = await owner.post(`/queues/${queueId}/payment-batches`, {
      format: "sepa",
      debtor_account: "not an iban",
      execution_date: "2024-05-01",
      status: "exported",
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["debtor_account"]);
    const both = await owner.post(`/queues/${queueId}/payment-batches`, {
      format: "abo",
      debtor_account: "2400123456/2010",
      execution_date: "2024-13-01",
    });
    expect(both.status).to.equal(400);
    const editor = h.member(organizationId, "editor");
    expect(
      (
        await editor.post(`/queues/${queueId}/payment-batches`, {
          format: "abo",
          debtor_account: "2400123456/2010",
          execution_date: "2024-05-01",
          status: "exported",
        })
      ).status,
    ).to.equal(403);
    expect((await h.organization("stranger").owner.get(`/payment-batches/${reply.body.data.id}/file`)).status).to.equal(404);
  });
});
