import { expect } from "chai";
import { Harness, queueFixture, type UserApi } from "./support/harness.js";
import { samplePng } from "./support/sample-files.js";

/** An SVG with a script: kept as application/xml (its bytes are XML), and HTML-like enough for a browser to run it. */
const SCRIPTED_SVG = Buffer.from(
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/api/v2/auth/me")</script><rect width="1" height="1"/></svg>\n',
);

/**
 * Files are the uploader's bytes: a download must never run as a page of docex's origin. Every answer of the file
 * route carries `Content-Security-Policy: sandbox` (no scripts, a unique origin, even if a browser renders it) and
 * `X-Content-Type-Options: nosniff`.
 */
describe("downloads are served sandboxed (membership is an in-process test double)", function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await Harness.start();
  });
  after(async () => {
    await h?.stop();
  });

  const download = (api: UserApi, id: string, headers: Record<string, string> = {}) =>
    fetch(`${h.baseUrl}/api/v2/documents/${id}/file`, {
      headers: { authorization: `Bearer ${h.issuer.mint({ sub: api.userId })}`, ...headers },
    });

  async function uploaded(owner: UserApi, queueId: string, fileName: string, bytes: Buffer): Promise<string> {
    const reply = await owner.post(`/queues/${queueId}/documents`, { file_name: fileName, content: bytes.toString("base64") });
    if (reply.status !== 201) throw new Error(`upload: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data.id;
  }

  it("an SVG kept as application/xml comes with Content-Security-Policy: sandbox and nosniff, as an attachment", async () => {
    const { owner, queueId } = await queueFixture(h, "svg");
    const id = await uploaded(owner, queueId, "logo.svg", SCRIPTED_SVG);
    const response = await download(owner, id);
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal("application/xml");
    expect(response.headers.get("content-security-policy")).to.equal("sandbox");
    expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
    expect(response.headers.get("content-disposition")).to.match(/^attachment;/);
    expect(Buffer.from(await response.arrayBuffer()).equals(SCRIPTED_SVG)).to.equal(true);
  });

  it("every file gets them, whatever its type, also on a 304", async () => {
    const { owner, queueId } = await queueFixture(h, "png");
    const id = await uploaded(owner, queueId, "scan.png", samplePng());
    const response = await download(owner, id);
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal("image/png");
    expect(response.headers.get("content-security-policy")).to.equal("sandbox");
    expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
    await response.arrayBuffer();

    const unchanged = await download(owner, id, { "if-none-match": response.headers.get("etag")! });
    expect(unchanged.status).to.equal(304);
    expect(unchanged.headers.get("content-security-policy")).to.equal("sandbox");
    expect(unchanged.headers.get("x-content-type-options")).to.equal("nosniff");
  });
});
