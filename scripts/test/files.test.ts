import { createHash, randomBytes, randomUUID } from "node:crypto";
import { eventually, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const MiB = 1024 * 1024;
const jsonOf = (response: Response): Promise<Answer["body"]> => response.json();

function samplePdf(): Buffer {
  return Buffer.from(
    `%PDF-1.4\n%${randomBytes(8).toString("hex")}\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n` +
      "2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]>> endobj\n" +
      "trailer <</Root 1 0 R>>\n%%EOF\n",
  );
}

function samplePng(): Buffer {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  return Buffer.concat([Buffer.from(png, "base64"), randomBytes(8)]);
}

/**
 * Kept files through the gateway, as `npm start` runs the stack: multipart and raw uploads streamed through the
 * gateway to the document service, the file read back byte for byte, 413 and 415, and the file's access rule.
 */
describe("kept files through the gateway: uploads, GET /documents/{id}/file, 413, 415, tenancy", function () {
  this.timeout(120_000);
  let stack: Stack;
  let token = "";
  let organizationId = "";
  let queueId = "";
  const call = (...args: Parameters<Stack["call"]>) => stack.call(...args);
  const dataOf = (answer: Answer, status: number) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    return answer.body.data;
  };

  /** A request through the gateway with any body (FormData, bytes), streamed. */
  const send = (method: string, path: string, init: { token?: string; body?: FormData | Buffer; headers?: Record<string, string> } = {}) =>
    fetch(`${stack.gateway}/api/v2${path}`, {
      method,
      headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body, duplex: "half" }),
    } as RequestInit);

  const form = (file: Buffer, fileName: string, fields: Record<string, string> = {}) => {
    const body = new FormData();
    body.set("file", new Blob([file]), fileName);
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    return body;
  };
  /** A multipart body as bytes with their length: sent whole, so an answer given before reading it cannot break the pipe. */
  const multipart = async (file: Buffer, fileName: string) => {
    const encoded = new Response(form(file, fileName));
    return { body: Buffer.from(await encoded.arrayBuffer()), headers: { "content-type": encoded.headers.get("content-type")! } };
  };

  async function organizationWithQueue(accessToken: string, label: string): Promise<{ organizationId: string; queueId: string }> {
    const organization = dataOf(
      await call("POST", "/organizations", { token: accessToken, body: { name: `${label} ${randomUUID().slice(0, 6)}` } }),
      201,
    );
    // document learns of the new organization from organization.created, a moment after it exists.
    const workspace = await eventually(async () => {
      const answer = await call("POST", "/workspaces", { token: accessToken, body: { organization_id: organization.id, name: label } });
      return answer.status === 201 ? answer : undefined;
    }, 10_000);
    // external: this suite is about the files themselves; nothing should extract them meanwhile.
    const queue = dataOf(
      await call("POST", "/queues", {
        token: accessToken,
        body: { workspace_id: dataOf(workspace, 201).id, name: "Files", extraction_engine: "external" },
      }),
      201,
    );
    expect(queue.extraction_engine).to.equal("external");
    return { organizationId: organization.id, queueId: queue.id };
  }

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    ({ organizationId, queueId } = await organizationWithQueue(token, "Files"));
  });

  it("streams a multipart PDF through to the document service and gives the same bytes back, with ETag and 304", async () => {
    const pdf = samplePdf();
    const uploaded = await send("POST", `/queues/${queueId}/documents`, {
      token,
      body: form(pdf, "faktura 7.pdf", { annotations: JSON.stringify([{ key: "invoice_id", value: "FV-7" }]) }),
    });
    const document = (await jsonOf(uploaded)).data;
    expect(uploaded.status).to.equal(201);
    expect(document).to.deep.include({ file_name: "faktura 7.pdf", status: "received" });

    const file = await send("GET", `/documents/${document.id}/file`, { token });
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(file.status).to.equal(200);
    expect(sha256(bytes)).to.equal(sha256(pdf));
    expect(file.headers.get("content-type")).to.equal("application/pdf");
    expect(file.headers.get("content-disposition")).to.equal(`attachment; filename="faktura 7.pdf"; filename*=UTF-8''faktura%207.pdf`);
    const etag = file.headers.get("etag");
    expect(etag).to.equal(`"${sha256(pdf)}"`);
    const cached = await send("GET", `/documents/${document.id}/file`, { token, headers: { "if-none-match": etag! } });
    expect(cached.status).to.equal(304);
  });

  it("takes a raw body of several MiB, named by ?file_name=, typed by its bytes", async () => {
    const png = Buffer.concat([samplePng(), randomBytes(3 * MiB)]);
    const uploaded = await send("POST", `/queues/${queueId}/documents?file_name=scan.png`, {
      token,
      body: png,
      headers: { "content-type": "image/png" },
    });
    const document = (await jsonOf(uploaded)).data;
    expect(uploaded.status).to.equal(201);
    expect(document.file_name).to.equal("scan.png");
    const file = await send("GET", `/documents/${document.id}/file`, { token });
    expect(file.headers.get("content-type")).to.equal("image/png");
    expect(sha256(Buffer.from(await file.arrayBuffer()))).to.equal(sha256(png));
  });

  it("answers 413 problem+json past DOCUMENT_MAX_FILE_BYTES (25 MiB) and past the gateway's limit, keeping nothing", async () => {
    const before = dataOf(await call("GET", `/queues/${queueId}/documents?page_size=100`, { token }), 200).length;
    const overService = Buffer.concat([samplePdf(), Buffer.alloc(25 * MiB)]);
    const byService = await send("POST", `/queues/${queueId}/documents`, {
      token,
      body: overService,
      headers: { "content-type": "application/pdf" },
    });
    expect(byService.status).to.equal(413);
    expect(byService.headers.get("content-type")).to.match(/^application\/problem\+json/);
    await byService.arrayBuffer();
    const overGateway = Buffer.concat([samplePdf(), Buffer.alloc(27 * MiB)]);
    const byGateway = await send("POST", `/queues/${queueId}/documents`, { token, ...(await multipart(overGateway, "huge.pdf")) }).catch(
      (error: unknown) => error,
    );
    // The gateway refuses a declared length over its limit before a byte goes on; a client may see the close first.
    if (byGateway instanceof Response) {
      expect(byGateway.status).to.equal(413);
      expect(byGateway.headers.get("content-type")).to.match(/^application\/problem\+json/);
    }
    expect(dataOf(await call("GET", `/queues/${queueId}/documents?page_size=100`, { token }), 200).length).to.equal(before);
  });

  it("answers 415 for a type the bytes do not show, whatever the header says, and 401 without a token", async () => {
    const text = await send("POST", `/queues/${queueId}/documents`, {
      token,
      body: Buffer.from("plain text pretending to be a PDF"),
      headers: { "content-type": "application/pdf" },
    });
    expect(text.status).to.equal(415);
    expect(text.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const html = await send("POST", `/queues/${queueId}/documents`, {
      token,
      ...(await multipart(Buffer.from("<html><body>x</body></html>"), "x.html")),
    });
    expect(html.status).to.equal(415);
    const declared = await send("POST", `/queues/${queueId}/documents`, {
      token,
      body: samplePdf(),
      headers: { "content-type": "text/plain" },
    });
    expect(declared.status).to.equal(415);
    const anonymous = await send("POST", `/queues/${queueId}/documents`, await multipart(samplePdf(), "a.pdf"));
    expect(anonymous.status).to.equal(401);
  });

  it("answers 404 file_not_found for a document without a file, and 404 to a user of another organization", async () => {
    const bare = dataOf(await call("POST", `/queues/${queueId}/documents`, { token, body: { file_name: "nothing.pdf" } }), 201);
    const missing = await call("GET", `/documents/${bare.id}/file`, { token });
    expect(missing.status).to.equal(404);
    expect(missing.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(missing.body.code).to.equal("file_not_found");

    const uploaded = await send("POST", `/queues/${queueId}/documents`, { token, body: form(samplePdf(), "mine.pdf") });
    const mine = (await jsonOf(uploaded)).data;
    // A user who belongs to another organization only.
    const elsewhere = dataOf(await call("POST", "/organizations", { token, body: { name: `Elsewhere ${randomUUID().slice(0, 6)}` } }), 201);
    const email = `stranger-${randomUUID().slice(0, 8)}@example.test`;
    dataOf(
      await call("POST", `/organizations/${elsewhere.id}/assign-roles`, { token, body: [{ operation: "invite", email, role: "owner" }] }),
      200,
    );
    const invitation = tokenIn(await stack.mail.waitForMail(email, 1, 15_000));
    const stranger = dataOf(
      await call("POST", "/auth/change-password", { body: { token: invitation, password: "another correct horse battery" } }),
      200,
    ).access_token;
    const foreign = await call("GET", `/documents/${mine.id}/file`, { token: stranger });
    expect(foreign.status).to.equal(404);
    expect(foreign.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const intoForeignQueue = await send("POST", `/queues/${queueId}/documents`, {
      token: stranger,
      ...(await multipart(samplePdf(), "x.pdf")),
    });
    expect(intoForeignQueue.status).to.equal(404);
    expect(organizationId).to.not.equal(elsewhere.id);
  });
});
