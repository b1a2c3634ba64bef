import { randomBytes, randomUUID } from "node:crypto";
import { acceptInvitations } from "@docex/access/testing";
import { configSchema as documentConfigSchema, startDocumentService } from "@docex/document";
import type { RunningService } from "@docex/kit/runtime";
import { configSchema as membershipConfigSchema, startMembershipService } from "@docex/membership";
import {
  dropDatabase,
  eventually,
  freePort,
  startMembershipAndDocument,
  TestIssuer,
  testServiceConfig,
  UserDirectoryStub,
} from "@docex/testkit";
import { badInvoiceFiles, buildInvoiceCorpus, type CorpusDocument, rasterize } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { imageSize } from "image-size";
import { configSchema, startExtractionService } from "../src/service.js";

interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: any;
  bytes: Uint8Array;
}

interface Word {
  text: string;
  box: [number, number, number, number];
}

/** The words whose box's centre lies inside `box`, in reading order: what a person sees inside a value's box. */
function wordsInside(words: Word[], box: [number, number, number, number]): string {
  return words
    .filter((word) => {
      const x = (word.box[0] + word.box[2]) / 2;
      const y = (word.box[1] + word.box[3]) / 2;
      return x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3];
    })
    .map((word) => word.text)
    .join(" ");
}

describe("pages API: sizes, words and images of a document's pages (real membership, document and extraction services)", function () {
  this.timeout(120_000);
  let issuer: TestIssuer;
  const directory = new UserDirectoryStub();
  const running: { service: RunningService; database: string }[] = [];
  let documentUrl: string;
  let extractionUrl: string;
  let membershipGrpc: string;
  let membershipUrl: string;
  let textPdf: CorpusDocument;
  let xml: CorpusDocument;
  const owner = randomUUID();
  const stranger = randomUUID();
  let viewer: string;
  let organizationId: string;
  let queueId: string;

  async function call(
    userId: string,
    base: string,
    method: string,
    path: string,
    init: { body?: unknown; raw?: Uint8Array; type?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { authorization: `Bearer ${issuer.mint({ sub: userId })}`, ...init.headers };
    let body: Buffer | string | undefined;
    if (init.raw) {
      headers["content-type"] = init.type ?? "application/octet-stream";
      body = Buffer.from(init.raw);
    } else if (init.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.body);
    }
    const response = await fetch(`${base}/api/v2${path}`, { method, headers, body });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = response.headers.get("content-type")?.includes("json") ? new TextDecoder().decode(bytes) : "";
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, bytes };
  }
  const pages = (userId: string, path: string, headers?: Record<string, string>) => call(userId, extractionUrl, "GET", path, { headers });

  async function organization(userId: string): Promise<{ organizationId: string; queueId: string }> {
    const created = await call(userId, membershipUrl, "POST", "/organizations", {
      body: { name: `acme ${randomBytes(3).toString("hex")}` },
    });
    const workspace = await call(userId, documentUrl, "POST", "/workspaces", {
      body: { organization_id: created.body.data.id, name: "Payables" },
    });
    const queue = await call(userId, documentUrl, "POST", "/queues", { body: { workspace_id: workspace.body.data.id, name: "Invoices" } });
    return { organizationId: created.body.data.id, queueId: queue.body.data.id };
  }

  /** Uploads a file to the queue and waits until the built-in engine has read it (to_validate). */
  async function extracted(
    bytes: Uint8Array,
    type: string,
    name: string,
    into = queueId,
  ): Promise<{
    id: string;
    annotations: { key: string; value: string; position?: { page: number; box: [number, number, number, number] } }[];
  }> {
    const upload = await call(owner, documentUrl, "POST", `/queues/${into}/documents?file_name=${name}`, { raw: bytes, type });
    expect(upload.status, JSON.stringify(upload.body)).to.equal(201);
    const id = upload.body.data.id as string;
    return eventually(
      async () => {
        const document = await call(owner, documentUrl, "GET", `/documents/${id}`);
        expect(document.body.data.status).to.equal("to_validate");
        return { id, annotations: document.body.data.annotations };
      },
      60_000,
      100,
    );
  }

  before(async () => {
    issuer = await TestIssuer.start();
    const auth = { AUTH_JWKS_URL: issuer.jwksUri, JWT_ISSUER: issuer.issuer, JWT_AUDIENCE: issuer.audience };
    const started = await startMembershipAndDocument(
      {
        membership: {
          configSchema: membershipConfigSchema,
          start: (config) => startMembershipService(config, { userDirectory: directory }),
        },
        document: { configSchema: documentConfigSchema, start: startDocumentService },
      },
      { issuer, document: { AUTOMATION_GRPC_ADDR: `127.0.0.1:${await freePort()}` } },
    );
    running.push(started.membership, started.document);
    membershipGrpc = `127.0.0.1:${started.membership.service.grpcPort}`;
    membershipUrl = `http://127.0.0.1:${started.membership.service.httpPort}`;
    documentUrl = `http://127.0.0.1:${started.document.service.httpPort}`;
    const config = testServiceConfig(
      "extraction",
      {
        ...auth,
        MEMBERSHIP_GRPC_ADDR: membershipGrpc,
        DOCUMENT_GRPC_ADDR: `127.0.0.1:${started.document.service.grpcPort}`,
        EXTRACTION_WORKERS: 1,
        EXTRACTION_MAX_MEMORY_MB: 192,
        EXTRACTION_PAGE_TIMEOUT_MS: 4_000,
      },
      configSchema,
    );
    const extraction = await startExtractionService(config);
    running.push({ service: extraction, database: config.DATABASE_NAME });
    extractionUrl = `http://127.0.0.1:${extraction.httpPort}`;

    const corpus = await buildInvoiceCorpus({ einvoices: 1, textPdfs: 1, offset: 700 });
    textPdf = corpus.find((document) => document.format === "pdf_text") as CorpusDocument;
    xml = corpus.find((document) => document.format === "ubl") as CorpusDocument;
    ({ organizationId, queueId } = await organization(owner));
    const email = `viewer-${randomBytes(3).toString("hex")}@example.test`;
    const invited = await call(owner, membershipUrl, "POST", `/organizations/${organizationId}/assign-roles`, {
      body: [{ operation: "invite", email, role: "viewer" }],
    });
    expect(invited.status).to.equal(200);
    viewer = directory.idOf(email);
    await acceptInvitations(membershipGrpc, organizationId, [{ userId: viewer, email }]);
    await organization(stranger);
  });

  after(async () => {
    for (const { service, database } of running.reverse()) {
      await service.stop().catch(() => undefined);
      await dropDatabase(database).catch(() => undefined);
    }
    await issuer?.stop();
  });

  it("lists a text PDF's pages in points, and the words under each value's position read that value", async () => {
    const document = await extracted(textPdf.bytes, "application/pdf", "invoice.pdf");
    const list = await pages(viewer, `/documents/${document.id}/pages`);
    expect(list.status).to.equal(200);
    expect(list.body.data).to.have.length(1);
    expect(list.body.data[0].page).to.equal(1);
    expect(list.body.data[0].width).to.be.closeTo(595, 1);
    expect(list.body.data[0].height).to.be.closeTo(842, 1);

    const words = await pages(viewer, `/documents/${document.id}/pages/1/words`);
    expect(words.status).to.equal(200);
    expect(words.body.data.length).to.be.above(20);
    for (const word of words.body.data as Word[]) {
      expect(word.text).to.match(/^\S+$/);
      expect(word.box[0]).to.be.at.most(word.box[2]);
      expect(word.box[1]).to.be.at.most(word.box[3]);
    }
    const invoiceId = document.annotations.find((annotation) => annotation.key === "invoice_id");
    expect(invoiceId?.position, "invoice_id has a position").to.not.equal(undefined);
    expect(invoiceId?.position?.page).to.equal(1);
    expect(wordsInside(words.body.data, invoiceId?.position?.box as Word["box"])).to.equal(textPdf.truth.invoiceId);
    const positioned = document.annotations.filter((annotation) => annotation.position);
    expect(positioned.length).to.be.at.least(4);
    for (const annotation of positioned)
      expect(wordsInside(words.body.data, annotation.position?.box as Word["box"]), annotation.key).to.not.equal("");
  });

  it("draws a page as a PNG of the width asked for (1200 by default), kept and answered 304 on If-None-Match; widths over 2000 are 400", async () => {
    const document = await extracted(textPdf.bytes, "application/pdf", "invoice.pdf");
    const started = Date.now();
    const image = await pages(viewer, `/documents/${document.id}/pages/1`);
    const firstMs = Date.now() - started;
    expect(image.status, JSON.stringify(image.body)).to.equal(200);
    expect(image.headers.get("content-type")).to.equal("image/png");
    expect(image.headers.get("cache-control")).to.match(/^private/);
    const etag = image.headers.get("etag") as string;
    expect(etag).to.match(/^"[0-9a-f]{32}"$/);
    const size = imageSize(image.bytes);
    expect(size.width).to.equal(1200);
    expect(size.height).to.be.closeTo(Math.round((1200 * 842) / 595), 2);

    const again = Date.now();
    const kept = await pages(viewer, `/documents/${document.id}/pages/1`);
    expect(kept.headers.get("etag")).to.equal(etag);
    expect(Buffer.from(kept.bytes).equals(Buffer.from(image.bytes))).to.equal(true);
    expect(Date.now() - again, `kept (first took ${firstMs} ms)`).to.be.below(Math.max(firstMs, 200));

    const notModified = await pages(viewer, `/documents/${document.id}/pages/1`, { "if-none-match": etag });
    expect(notModified.status).to.equal(304);
    expect(notModified.bytes.length).to.equal(0);

    const small = await pages(viewer, `/documents/${document.id}/pages/1?width=300`);
    expect(imageSize(small.bytes).width).to.equal(300);
    expect(small.headers.get("etag")).to.not.equal(etag);
    const widest = await pages(viewer, `/documents/${document.id}/pages/1?width=2000`);
    expect(imageSize(widest.bytes).width).to.equal(2000);
    for (const bad of ["2001", "0", "abc", "12.5"]) {
      const refused = await pages(viewer, `/documents/${document.id}/pages/1?width=${bad}`);
      expect(refused.status, bad).to.equal(400);
      expect(refused.body.errors[0].path).to.equal("width");
    }
  });

  it("answers 404 page_not_found past the last page and 400 for page 0 or a non-integer", async () => {
    const document = await extracted(textPdf.bytes, "application/pdf", "invoice.pdf");
    for (const path of ["/pages/2", "/pages/2/words"]) {
      const past = await pages(owner, `/documents/${document.id}${path}`);
      expect(past.status, path).to.equal(404);
      expect(past.body.code).to.equal("page_not_found");
    }
    for (const page of ["0", "1.5", "one", "-1"]) {
      const bad = await pages(owner, `/documents/${document.id}/pages/${page}`);
      expect(bad.status, page).to.equal(400);
    }
  });

  it("answers 404 for another organization's document, an unknown one and a malformed id, with the same problem", async () => {
    const document = await extracted(textPdf.bytes, "application/pdf", "invoice.pdf");
    for (const path of ["/pages", "/pages/1", "/pages/1/words"]) {
      const other = await pages(stranger, `/documents/${document.id}${path}`);
      expect(other.status, path).to.equal(404);
      expect(other.body.code).to.equal("document_not_found");
      expect((await pages(owner, `/documents/${randomUUID()}${path}`)).status).to.equal(404);
      expect((await pages(owner, `/documents/not-an-id${path}`)).status).to.equal(404);
    }
    expect((await call(owner, extractionUrl, "GET", `/documents/${document.id}/pages`, {})).status).to.equal(200);
    const anonymous = await fetch(`${extractionUrl}/api/v2/documents/${document.id}/pages`);
    expect(anonymous.status).to.equal(401);
  });

  it("lists no page for an XML e-invoice, and a scan's page with OCR's words", async () => {
    const einvoice = await extracted(xml.bytes, "application/xml", "invoice.xml");
    const none = await pages(owner, `/documents/${einvoice.id}/pages`);
    expect(none.status).to.equal(200);
    expect(none.body.data).to.deep.equal([]);
    expect((await pages(owner, `/documents/${einvoice.id}/pages/1`)).status).to.equal(404);

    const { png } = await rasterize(textPdf.bytes, 100);
    const scan = await extracted(png, "image/png", "scan.png");
    const list = await pages(owner, `/documents/${scan.id}/pages`);
    const { width, height } = imageSize(png);
    expect(list.body.data).to.deep.equal([{ page: 1, width, height }]);
    const image = await pages(owner, `/documents/${scan.id}/pages/1?width=400`);
    expect(image.status).to.equal(200);
    expect(imageSize(image.bytes).width).to.equal(400);
    const words = await pages(owner, `/documents/${scan.id}/pages/1/words`);
    expect(words.status).to.equal(200);
    const text = (words.body.data as Word[]).map((word) => word.text).join(" ");
    expect(text).to.include(textPdf.truth.invoiceId);
  });

  it("reads the pages of a document no engine read (an outside engine's queue) on the first request, from its file", async () => {
    const outside = await call(owner, documentUrl, "PATCH", `/queues/${queueId}`, { body: { extraction_engine: "external" } });
    expect(outside.status, JSON.stringify(outside.body)).to.equal(200);
    try {
      const upload = await call(owner, documentUrl, "POST", `/queues/${queueId}/documents?file_name=invoice.pdf`, {
        raw: textPdf.bytes,
        type: "application/pdf",
      });
      const id = upload.body.data.id;
      const list = await pages(viewer, `/documents/${id}/pages`);
      expect(list.status).to.equal(200);
      expect(list.body.data).to.have.length(1);
      const words = await pages(viewer, `/documents/${id}/pages/1/words`);
      expect((words.body.data as Word[]).map((word) => word.text)).to.include(textPdf.truth.invoiceId);
    } finally {
      await call(owner, documentUrl, "PATCH", `/queues/${queueId}`, { body: { extraction_engine: "builtin" } });
    }
  });

  it("draws a PDF bomb's page (256 MiB content stream) or ends it with 422 page_unreadable within seconds, and the next page is still drawn", async () => {
    const bomb = (await badInvoiceFiles()).find((file) => file.name === "bomb.pdf")?.bytes as Uint8Array;
    const outside = await call(owner, documentUrl, "PATCH", `/queues/${queueId}`, { body: { extraction_engine: "external" } });
    expect(outside.status).to.equal(200);
    try {
      const upload = await call(owner, documentUrl, "POST", `/queues/${queueId}/documents?file_name=bomb.pdf`, {
        raw: bomb,
        type: "application/pdf",
      });
      const id = upload.body.data.id;
      const started = Date.now();
      const image = await pages(owner, `/documents/${id}/pages/1?width=2000`);
      expect([200, 422]).to.include(image.status);
      if (image.status === 200) expect(imageSize(image.bytes).width).to.be.at.most(2000);
      else expect(image.body.code).to.equal("page_unreadable");
      expect(Date.now() - started).to.be.below(6_000);
    } finally {
      await call(owner, documentUrl, "PATCH", `/queues/${queueId}`, { body: { extraction_engine: "builtin" } });
    }
    const document = await extracted(textPdf.bytes, "application/pdf", "invoice.pdf");
    expect((await pages(owner, `/documents/${document.id}/pages/1?width=200`)).status).to.equal(200);
  });
});
