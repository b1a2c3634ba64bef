import { createHash } from "node:crypto";
import { databaseUrl } from "@docex/kit/db";
import { NotFoundError } from "@docex/kit/errors";
import type { FileChunk } from "@docex/protos";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import pg from "pg";
import { documentFixture, Harness, queueFixture, type Reply, type UserApi } from "./support/harness.js";
import { samplePdf, samplePng, sampleTiff, sampleXml, sampleZip } from "./support/sample-files.js";

type UploadBody = NonNullable<RequestInit["body"]>;

/** A JSON answer, asserted field by field like the harness's. */
const json = (response: Response): Promise<Reply["body"]> => response.json();

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const MAX_FILE_BYTES = 300_000;
/** 0.00003 days: a deleted document's file is purged about 2.6 s after the deletion. */
const RETENTION_DAYS = 0.00003;

describe("kept files: uploads, GET /documents/{id}/file, ReadDocumentFile, RecordExtraction, retention (membership is a double)", function () {
  this.timeout(60_000);
  let h: Harness;
  let database: pg.Client;

  before(async () => {
    h = await Harness.start({
      env: { DOCUMENT_MAX_FILE_BYTES: MAX_FILE_BYTES, DOCUMENT_FILE_RETENTION_DAYS: RETENTION_DAYS, DOCUMENT_FILE_SWEEP_INTERVAL_MS: 200 },
    });
    database = new pg.Client({ connectionString: databaseUrl(h.config.DATABASE_URL, h.config.DATABASE_NAME) });
    await database.connect();
  });

  after(async () => {
    await database?.end();
    await h?.stop();
  });

  /** A request with the user's token and any body. */
  async function send(api: UserApi, method: string, path: string, init: { body?: UploadBody; headers?: Record<string, string> } = {}) {
    return fetch(`${h.baseUrl}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${h.issuer.mint({ sub: api.userId })}`, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body, duplex: "half" }),
    } as RequestInit);
  }

  const form = (file: Buffer, fileName: string, fields: Record<string, string> = {}) => {
    const body = new FormData();
    body.set("file", new Blob([file]), fileName);
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    return body;
  };

  const chunkRows = async () => Number((await database.query("SELECT count(*) AS n FROM file_chunks")).rows[0].n);
  const documentRows = async () => Number((await database.query("SELECT count(*) AS n FROM documents")).rows[0].n);

  async function download(api: UserApi, id: string, headers: Record<string, string> = {}) {
    const response = await send(api, "GET", `/documents/${id}/file`, { headers });
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it("takes a multipart upload with fields, keeps the file, and gives the same bytes back with type, name and ETag", async () => {
    const { owner, queueId } = await queueFixture(h, "multipart");
    const pdf = samplePdf();
    const uploaded = await send(owner, "POST", `/queues/${queueId}/documents`, {
      body: form(pdf, "faktura.pdf", {
        annotations: JSON.stringify([{ key: "invoice_id", value: "FV-7" }]),
        confidence: "40",
      }),
    });
    const body = await json(uploaded);
    expect(uploaded.status, JSON.stringify(body)).to.equal(201);
    expect(body.data).to.deep.include({ file_name: "faktura.pdf", status: "received", confidence: 40 });
    expect(body.data.annotations.find((a: { key: string }) => a.key === "invoice_id").value).to.equal("FV-7");

    const { response, bytes } = await download(owner, body.data.id);
    expect(response.status).to.equal(200);
    expect(sha256(bytes)).to.equal(sha256(pdf));
    expect(response.headers.get("content-type")).to.equal("application/pdf");
    expect(response.headers.get("content-length")).to.equal(String(pdf.length));
    expect(response.headers.get("content-disposition")).to.equal(`attachment; filename="faktura.pdf"; filename*=UTF-8''faktura.pdf`);
    expect(response.headers.get("etag")).to.equal(`"${sha256(pdf)}"`);

    const again = await download(owner, body.data.id, { "if-none-match": `"${sha256(pdf)}"` });
    expect(again.response.status).to.equal(304);
    expect(again.bytes.length).to.equal(0);
    expect((await download(owner, body.data.id, { "if-none-match": '"something-else"' })).response.status).to.equal(200);

    const created = await h.events.settle(
      (recorded) => recorded.event.type === "document.created" && recorded.event.data.document_id === body.data.id,
      1,
    );
    expect(created[0]!.event.data).to.deep.include({
      content_type: "application/pdf",
      file_size: pdf.length,
      has_file: true,
      file_sha256: sha256(pdf),
    });
  });

  it("takes raw bodies, the name from Content-Disposition or ?file_name=, the type from the bytes", async () => {
    const { owner, queueId } = await queueFixture(h, "raw");
    const cases: [Buffer, string, Record<string, string>, string, string][] = [
      [samplePng(), "image/png", { "content-disposition": `attachment; filename*=UTF-8''%C3%BA%C4%8Det.png` }, "", "účet.png"],
      [sampleTiff(), "image/tiff", {}, "?file_name=scan.tif", "scan.tif"],
      [sampleXml(), "text/xml", { "content-disposition": 'attachment; filename="inv.isdoc"' }, "", "inv.isdoc"],
      [samplePdf(), "application/pdf", {}, "", "document.pdf"],
    ];
    for (const [file, type, headers, query, name] of cases) {
      const uploaded = await send(owner, "POST", `/queues/${queueId}/documents${query}`, {
        body: file,
        headers: { "content-type": type, ...headers },
      });
      const body = await json(uploaded);
      expect(uploaded.status, `${name}: ${JSON.stringify(body)}`).to.equal(201);
      expect(body.data.file_name).to.equal(name);
      const { response, bytes } = await download(owner, body.data.id);
      expect(bytes.equals(file), name).to.equal(true);
      expect(response.headers.get("content-type"), name).to.equal(type === "text/xml" ? "application/xml" : type);
    }
  });

  it("accepts a zip only as an .isdocx, and sniffs rather than trusts the declared type (415 otherwise, nothing kept)", async () => {
    const { owner, queueId } = await queueFixture(h, "types");
    const isdocx = await send(owner, "POST", `/queues/${queueId}/documents`, { body: form(sampleZip(), "faktura.isdocx") });
    expect(isdocx.status).to.equal(201);

    const chunksBefore = await chunkRows();
    const documentsBefore = await documentRows();
    const refusals: [string, RequestInit["body"], Record<string, string>][] = [
      ["a zip not named .isdocx", form(sampleZip(), "archive.zip"), {}],
      ["text declared as a PDF", Buffer.from("just some text, not a PDF"), { "content-type": "application/pdf" }],
      ["HTML", form(Buffer.from("<html><body>hi</body></html>"), "page.html"), {}],
      ["an empty file", form(Buffer.alloc(0), "empty.pdf"), {}],
      ["a raw body of a type not accepted", samplePdf(), { "content-type": "text/plain" }],
    ];
    for (const [label, body, headers] of refusals) {
      const refused = await send(owner, "POST", `/queues/${queueId}/documents`, { body: body as UploadBody, headers });
      expect(refused.status, label).to.equal(415);
      expect(refused.headers.get("content-type"), label).to.match(/^application\/problem\+json/);
    }
    expect(await chunkRows()).to.equal(chunksBefore);
    expect(await documentRows()).to.equal(documentsBefore);
  });

  it("answers 413 problem+json over DOCUMENT_MAX_FILE_BYTES, multipart or raw, and keeps nothing", async () => {
    const { owner, queueId } = await queueFixture(h, "large");
    const chunksBefore = await chunkRows();
    const documentsBefore = await documentRows();
    const large = Buffer.concat([samplePdf(), Buffer.alloc(MAX_FILE_BYTES)]);
    const multipart = await send(owner, "POST", `/queues/${queueId}/documents`, { body: form(large, "large.pdf") });
    expect(multipart.status).to.equal(413);
    expect((await json(multipart)).code).to.be.a("string");
    const raw = await send(owner, "POST", `/queues/${queueId}/documents`, { body: large, headers: { "content-type": "application/pdf" } });
    expect(raw.status).to.equal(413);
    expect(raw.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const exact = Buffer.concat([samplePdf(), Buffer.alloc(MAX_FILE_BYTES)]).subarray(0, MAX_FILE_BYTES);
    const fits = await send(owner, "POST", `/queues/${queueId}/documents`, { body: exact, headers: { "content-type": "application/pdf" } });
    expect(fits.status).to.equal(201);
    expect(await chunkRows()).to.equal(chunksBefore + 2);
    expect(await documentRows()).to.equal(documentsBefore + 1);
  });

  it("checks the caller before reading: 404 for a queue of another organization, 403 for a viewer, 400 for bad fields", async () => {
    const { owner, organization, queueId } = await queueFixture(h, "who");
    const other = await queueFixture(h, "other");
    expect((await send(other.owner, "POST", `/queues/${queueId}/documents`, { body: form(samplePdf(), "a.pdf") })).status).to.equal(404);
    const viewer = h.member(organization.id, "viewer");
    expect((await send(viewer, "POST", `/queues/${queueId}/documents`, { body: form(samplePdf(), "a.pdf") })).status).to.equal(403);
    const bad = await send(owner, "POST", `/queues/${queueId}/documents`, {
      body: form(samplePdf(), "a.pdf", { annotations: "not json", confidence: "200" }),
    });
    const problem = await json(bad);
    expect(bad.status).to.equal(400);
    expect(problem.errors.map((error: { path: string }) => error.path)).to.include.members(["annotations", "confidence"]);
    const noFile = new FormData();
    noFile.set("file_name", "a.pdf");
    expect((await send(owner, "POST", `/queues/${queueId}/documents`, { body: noFile })).status).to.equal(400);
  });

  it("keeps the base64 content of a JSON upload too; 404 file_not_found without a file; the file's access is the document's", async () => {
    const { owner, organization, queueId } = await queueFixture(h, "json");
    const png = samplePng();
    const uploaded = await owner.post(`/queues/${queueId}/documents`, { file_name: "p.png", content: png.toString("base64") });
    const { response, bytes } = await download(owner, uploaded.body.data.id);
    expect(response.headers.get("content-type")).to.equal("image/png");
    expect(bytes.equals(png)).to.equal(true);

    const bare = await documentFixture(owner, queueId);
    const missing = await send(owner, "GET", `/documents/${bare}/file`);
    expect(missing.status).to.equal(404);
    expect(missing.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect((await json(missing)).code).to.equal("file_not_found");

    const stranger = await queueFixture(h, "stranger");
    const foreign = await send(stranger.owner, "GET", `/documents/${uploaded.body.data.id}/file`);
    expect(foreign.status).to.equal(404);
    expect((await json(foreign)).code).to.equal("document_not_found");
    const viewer = h.member(organization.id, "viewer");
    expect((await download(viewer, uploaded.body.data.id)).response.status).to.equal(200);
  });

  it("streams a file over gRPC in pieces, the first with type, name and size; NOT_FOUND for another organization or no file", async () => {
    const { owner, organization, queueId } = await queueFixture(h, "grpc-file");
    const large = Buffer.concat([samplePdf(), Buffer.alloc(280_000, 7)]);
    const uploaded = await send(owner, "POST", `/queues/${queueId}/documents?file_name=big.pdf`, {
      body: large,
      headers: { "content-type": "application/pdf" },
    });
    const id = (await json(uploaded)).data.id as string;
    const chunks: FileChunk[] = [];
    for await (const chunk of h.grpc.readDocumentFile({ organization_id: organization.id, document_id: id })) chunks.push(chunk);
    expect(chunks.length).to.be.greaterThan(1);
    expect(chunks[0]).to.deep.include({ content_type: "application/pdf", file_name: "big.pdf", size: String(large.length) });
    expect(Buffer.concat(chunks.map((chunk) => chunk.data)).equals(large)).to.equal(true);

    const notFound = async (organizationId: string, documentId: string) => {
      try {
        for await (const _chunk of h.grpc.readDocumentFile({ organization_id: organizationId, document_id: documentId })) return "data";
        return "empty";
      } catch (error) {
        return error;
      }
    };
    expect(await notFound((await queueFixture(h, "grpc-other")).organization.id, id)).to.be.instanceOf(NotFoundError);
    expect(await notFound(organization.id, await documentFixture(owner, queueId))).to.be.instanceOf(NotFoundError);
    expect(await notFound(organization.id, "not-a-uuid")).to.be.instanceOf(NotFoundError);
  });

  it("records the built-in engine's extraction like POST /extraction, with its messages, once per idempotency key", async () => {
    const { owner, organization, queueId } = await queueFixture(h, "record");
    const id = await documentFixture(owner, queueId);
    const request = {
      organization_id: organization.id,
      document_id: id,
      idempotency_key: `extraction:${id}`,
      extraction_json: JSON.stringify({
        annotations: [{ key: "invoice_id", value: "FV-1", confidence: 100, source: "isdoc" }],
        confidence: 100,
      }),
      messages_json: JSON.stringify([{ key: null, message: "Read from the embedded ISDOC.", severity: "info" }]),
    };
    expect(await h.grpc.recordExtraction(request)).to.deep.equal({ applied: true, reason: "" });
    const document = (await owner.get(`/documents/${id}`)).body.data;
    expect(document.status).to.equal("to_validate");
    expect(document.confidence).to.equal(100);
    expect(document.annotations.find((a: { key: string }) => a.key === "invoice_id")).to.deep.include({ value: "FV-1", source: "isdoc" });
    expect(document.messages).to.deep.include({ key: null, message: "Read from the embedded ISDOC.", severity: "info" });
    const extracted = await h.events.settle(
      (recorded) => recorded.event.type === "document.extracted" && recorded.event.data.document_id === id,
      1,
    );
    expect((extracted[0]!.event as { actor_user_id?: string | null }).actor_user_id ?? null).to.equal(null);

    expect(await h.grpc.recordExtraction(request)).to.deep.equal({ applied: false, reason: "already_recorded" });
    expect((await owner.get(`/documents/${id}`)).body.data.messages).to.have.length(1);

    const deleted = await documentFixture(owner, queueId);
    await owner.post(`/documents/${deleted}/status`, { status: "deleted" });
    expect(await h.grpc.recordExtraction({ ...request, document_id: deleted, idempotency_key: "k2" })).to.deep.equal({
      applied: false,
      reason: "status_move_not_allowed",
    });
    const other = await queueFixture(h, "record-other");
    const foreign = await h.grpc
      .recordExtraction({ ...request, organization_id: other.organization.id, idempotency_key: "k3" })
      .catch((error: unknown) => error);
    expect(foreign).to.be.instanceOf(NotFoundError);
  });

  it("moves a document whose file the engine gave up on to extraction_failed with the engine's message, and nothing else", async () => {
    const { owner, organization, queueId } = await queueFixture(h, "record-failed");
    const id = await documentFixture(owner, queueId);
    const message = "Reading this file needed more than 384 MB of memory; it was stopped.";
    const request = {
      organization_id: organization.id,
      document_id: id,
      idempotency_key: `extraction:${id}`,
      // Ignored when the engine gave up: no annotation of a stopped read is ever recorded.
      extraction_json: JSON.stringify({ annotations: [{ key: "invoice_id", value: "half-read", confidence: 90 }], confidence: 90 }),
      messages_json: JSON.stringify([{ key: null, message, severity: "warning" }]),
      failed: true,
    };
    expect(await h.grpc.recordExtraction(request)).to.deep.equal({ applied: true, reason: "" });
    const document = (await owner.get(`/documents/${id}`)).body.data;
    expect(document.status).to.equal("extraction_failed");
    expect(document.messages).to.deep.include({ key: null, message, severity: "warning" });
    expect(document.annotations.find((a: { key: string; value: string }) => a.key === "invoice_id")?.value ?? "").to.equal("");
    const changed = await h.events.settle(
      (recorded) =>
        recorded.event.type === "document.status_changed" &&
        recorded.event.data.document_id === id &&
        (recorded.event.data as { status?: string }).status === "extraction_failed",
      1,
    );
    expect(changed).to.have.length(1);
    expect(
      h.events.matching((recorded) => recorded.event.type === "document.extracted" && recorded.event.data.document_id === id),
    ).to.deep.equal([]);
    // The same key again changes nothing.
    expect(await h.grpc.recordExtraction(request)).to.deep.equal({ applied: false, reason: "already_recorded" });
  });

  it("sets extraction_engine at creation (default builtin) and answers it in GetQueue", async () => {
    const { owner, workspaceId, queueId } = await queueFixture(h, "engine");
    const external = await owner.post("/queues", { workspace_id: workspaceId, name: "Outside engine", extraction_engine: "external" });
    expect(external.body.data.extraction_engine).to.equal("external");
    expect((await owner.get(`/queues/${external.body.data.id}`)).body.data.extraction_engine).to.equal("external");
    expect((await h.grpc.getQueue({ queue_id: external.body.data.id })).queue?.extraction_engine).to.equal("external");
    expect((await h.grpc.getQueue({ queue_id: queueId })).queue?.extraction_engine).to.equal("builtin");
    const bad = await owner.post("/queues", { workspace_id: workspaceId, name: "Bad", extraction_engine: "magic" });
    expect(bad.status).to.equal(400);
  });

  it("purges the file of a deleted document after DOCUMENT_FILE_RETENTION_DAYS, and only of a deleted one", async () => {
    const { owner, queueId } = await queueFixture(h, "retention");
    const upload = async () => {
      const response = await send(owner, "POST", `/queues/${queueId}/documents`, { body: form(samplePdf(), "r.pdf") });
      return (await json(response)).data.id as string;
    };
    const kept = await upload();
    const doomed = await upload();
    await owner.post(`/documents/${doomed}/status`, { status: "deleted" });
    // Still there within the retention period.
    expect((await download(owner, doomed)).response.status).to.equal(200);
    await eventually(async () => ((await send(owner, "GET", `/documents/${doomed}/file`)).status === 404 ? true : undefined), 15_000, 200);
    const rows = await database.query("SELECT count(*) AS n FROM file_chunks WHERE file_key = $1", [doomed]);
    expect(Number(rows.rows[0].n)).to.equal(0);
    expect((await owner.get(`/documents/${doomed}`)).body.data.status).to.equal("deleted");
    expect((await download(owner, kept)).response.status).to.equal(200);
  });
});
