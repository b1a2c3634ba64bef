import { connectDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { EventRecorder, eventually } from "@docex/testkit";
import { expect } from "chai";
import { documentFixture, Harness, queueFixture } from "./support/harness.js";

const DAY_MS = 24 * 3600 * 1000;

describe("a queue's document_lifetime_days: older documents are purged with their files, annotations and changes", function () {
  this.timeout(60_000);
  let h: Harness;
  let database: Sql;
  let purges: EventRecorder;

  before(async () => {
    purges = await EventRecorder.start({ subjects: ["docex.documents.>"], label: "purges" });
    // A sweep every 200 ms, so that the test sees it run.
    h = await Harness.start({ env: { DOCUMENT_LIFETIME_SWEEP_INTERVAL_MS: 200 } });
    database = await connectDatabase({
      serverUrl: h.config.DATABASE_URL,
      database: h.config.DATABASE_NAME,
      logger: createLogger("test", "silent"),
    });
  });
  after(async () => {
    await database?.close();
    await h?.stop();
    await purges?.stop();
  });

  const count = async (sql: string, bind: unknown[]) => {
    const row = await database.one<{ n: string }>(sql, bind);
    return Number(row?.n ?? 0);
  };

  /** Rows of the document database that name these documents, table by table (only tables that have some). */
  async function rowsOf(documentIds: string[]): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    const tables: Array<[string, string]> = [
      ["documents", "id"],
      ["document_changes", "document_id"],
      ["initial_validation_jobs", "document_id"],
      ["file_chunks", "file_key"],
    ];
    for (const [table, column] of tables) {
      const n = await count(`SELECT count(*) AS n FROM ${table} WHERE ${column}::text = ANY($1::text[])`, [documentIds]);
      if (n > 0) counts[table] = n;
    }
    return counts;
  }

  const backdate = (documentId: string, days: number) =>
    database.run("UPDATE documents SET created_at = $2 WHERE id = $1", [documentId, new Date(Date.now() - days * DAY_MS)]);

  it("PATCH /queues/{id} sets and clears it (who manages the queue); bad values are 400 and change nothing", async () => {
    const { organization, queueId } = await queueFixture(h, "lifetime-settings");
    expect((await organization.owner.get(`/queues/${queueId}`)).body.data.document_lifetime_days).to.equal(null);

    const set = await organization.owner.patch(`/queues/${queueId}`, { document_lifetime_days: 30 });
    expect(set.status).to.equal(200);
    expect(set.body.data.document_lifetime_days).to.equal(30);
    const changed = await h.events.waitFor(
      (recorded) =>
        recorded.event.type === "configuration.changed" &&
        (recorded.event.data as { queue_id: string; current: Record<string, unknown> }).queue_id === queueId &&
        "document_lifetime_days" in ((recorded.event.data as { current: Record<string, unknown> }).current ?? {}),
    );
    expect(changed.event.data).to.deep.include({ previous: { document_lifetime_days: null }, current: { document_lifetime_days: 30 } });

    for (const bad of [0, 3651, 1.5, "30", -1]) {
      const refused = await organization.owner.patch(`/queues/${queueId}`, { document_lifetime_days: bad });
      expect(refused.status, String(bad)).to.equal(400);
      expect(refused.body.errors[0].path).to.equal("document_lifetime_days");
    }
    for (const role of ["editor", "viewer", "approver"] as const) {
      expect((await h.member(organization.id, role).patch(`/queues/${queueId}`, { document_lifetime_days: 1 })).status, role).to.equal(403);
    }
    expect((await h.organization("lifetime-stranger").owner.patch(`/queues/${queueId}`, { document_lifetime_days: 1 })).status).to.equal(
      404,
    );
    expect((await organization.owner.get(`/queues/${queueId}`)).body.data.document_lifetime_days).to.equal(30);

    const cleared = await organization.owner.patch(`/queues/${queueId}`, { document_lifetime_days: null });
    expect(cleared.body.data.document_lifetime_days).to.equal(null);
    // A name change alone keeps the lifetime.
    await organization.owner.patch(`/queues/${queueId}`, { document_lifetime_days: 3650 });
    expect((await organization.owner.patch(`/queues/${queueId}`, { name: "Renamed" })).body.data.document_lifetime_days).to.equal(3650);
  });

  it("purges the documents older than the lifetime (files, changes too) and announces them; younger ones and other queues stay", async () => {
    const { organization, queueId } = await queueFixture(h, "lifetime-purge");
    const other = await queueFixture(h, "lifetime-kept");
    const withFile = await organization.owner.post(`/queues/${queueId}/documents`, {
      file_name: "old.pdf",
      content: Buffer.from("%PDF-1.4\n%old\n").toString("base64"),
    });
    expect(withFile.status).to.equal(201);
    const old = [withFile.body.data.id as string, await documentFixture(organization.owner, queueId, { extracted: true })];
    await organization.owner.patch(`/documents/${old[1]}/annotations`, { annotations: [{ key: "invoice_id", value: "INV-2" }] });
    const young = await documentFixture(organization.owner, queueId, { extracted: true });
    const elsewhere = await documentFixture(other.owner, other.queueId, { extracted: true });
    for (const id of [...old, elsewhere]) await backdate(id, 40);
    await backdate(young, 20);
    const storedBefore = await count("SELECT stored_bytes AS n FROM organization_usage WHERE organization_id = $1", [organization.id]);
    expect(storedBefore).to.be.greaterThan(0);

    const before = await rowsOf(old);
    expect(before).to.include.keys("documents", "document_changes", "file_chunks");
    expect(before.documents).to.equal(2);

    expect((await organization.owner.patch(`/queues/${queueId}`, { document_lifetime_days: 30 })).status).to.equal(200);
    const announced = await purges.waitFor(
      (recorded) => recorded.event.type === "documents.purged" && (recorded.event.data as { queue_id: string }).queue_id === queueId,
      10_000,
    );
    expect(announced.event.organization_id).to.equal(organization.id);
    expect((announced.event.data as { document_ids: string[] }).document_ids).to.have.members(old);
    expect(await eventually(async () => ((await rowsOf(old)).documents ? undefined : rowsOf(old)), 5_000)).to.deep.equal({});

    for (const id of old) expect((await organization.owner.get(`/documents/${id}`)).status).to.equal(404);
    expect((await organization.owner.get(`/documents/${young}`)).status).to.equal(200);
    expect((await other.owner.get(`/documents/${elsewhere}`)).status).to.equal(200);
    expect(await count("SELECT stored_bytes AS n FROM organization_usage WHERE organization_id = $1", [organization.id])).to.equal(0);
    // The sweep runs again and again; what was purged is announced once.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(purges.matching((recorded) => (recorded.event.data as { queue_id: string }).queue_id === queueId).length).to.equal(1);
  });

  it("a purged document's exported bytes go with it: export run and payment batch files are removed, the records stay", async () => {
    const { organization, owner, queueId } = await queueFixture(h, "lifetime-exports");
    const invoice = {
      invoice_id: "INV-PURGE",
      currency: "EUR",
      iban: "DE89370400440532013000",
      supplier_name: "Lieferant GmbH",
      due_date: "2024-04-30",
      total_due: "99.00",
    };
    const annotations = Object.entries(invoice).map(([key, value]) => ({ key, value }));
    const doomed = await documentFixture(owner, queueId);
    expect((await owner.post(`/documents/${doomed}/extraction`, { annotations, confidence: 90 })).status).to.equal(200);
    const kept = await documentFixture(owner, queueId, { extracted: true });
    const exported = await owner.post(`/queues/${queueId}/exports`, { name: "JSON", format: "json", trigger: "manual" });
    const run = await owner.post(`/exports/${exported.body.data.id}/runs`, { document_ids: [doomed] });
    const keptRun = await owner.post(`/exports/${exported.body.data.id}/runs`, { document_ids: [kept] });
    expect([run.status, keptRun.status]).to.deep.equal([201, 201]);
    const batch = await owner.post(`/queues/${queueId}/payment-batches`, {
      format: "sepa",
      debtor_account: "CZ6508000000192000145399",
      execution_date: "2024-04-25",
      document_ids: [doomed],
    });
    expect(batch.status, JSON.stringify(batch.body)).to.equal(201);
    expect(batch.body.data.document_ids).to.deep.equal([doomed]);
    const fileStatus = async (path: string) =>
      (await fetch(`${h.baseUrl}/api/v2${path}`, { headers: { authorization: `Bearer ${h.issuer.mint({ sub: owner.userId })}` } })).status;
    expect(await fileStatus(`/export-runs/${run.body.data.id}/file`)).to.equal(200);
    expect(await fileStatus(`/payment-batches/${batch.body.data.id}/file`)).to.equal(200);

    await backdate(doomed, 40);
    expect((await organization.owner.patch(`/queues/${queueId}`, { document_lifetime_days: 30 })).status).to.equal(200);
    await purges.waitFor(
      (recorded) => recorded.event.type === "documents.purged" && (recorded.event.data as { queue_id: string }).queue_id === queueId,
      10_000,
    );
    const bytesOf = (table: string, id: string) => count(`SELECT count(*) AS n FROM ${table} WHERE id = $1 AND file IS NOT NULL`, [id]);
    expect(await eventually(async () => ((await bytesOf("export_runs", run.body.data.id)) === 0 ? true : undefined), 5_000)).to.equal(true);
    expect(await bytesOf("payment_batches", batch.body.data.id)).to.equal(0);
    expect(await bytesOf("export_runs", keptRun.body.data.id)).to.equal(1);

    const runFile = await owner.get(`/export-runs/${run.body.data.id}/file`);
    expect(runFile.status).to.equal(404);
    expect(runFile.body).to.include({ code: "export_file_purged" });
    expect((await owner.get(`/export-runs/${run.body.data.id}`)).body.data.file_purged_at).to.be.a("string");
    const batchFile = await owner.get(`/payment-batches/${batch.body.data.id}/file`);
    expect(batchFile.status).to.equal(404);
    expect(batchFile.body).to.include({ code: "payment_batch_file_purged" });
    const readBatch = await owner.get(`/payment-batches/${batch.body.data.id}`);
    expect(readBatch.body.data).to.include({ id: batch.body.data.id, total: 99 });
    expect(readBatch.body.data.file_purged_at).to.be.a("string");
    expect(await fileStatus(`/export-runs/${keptRun.body.data.id}/file`)).to.equal(200);
  });
});
