import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { APP_CONTENT_SECURITY_POLICY } from "../src/web-app.js";
import { closedPortUrl, type RunningGateway, startGateway } from "./harness.js";

const INDEX = '<!doctype html><html><head><script type="module" src="/app/assets/index-abc123.js"></script></head><body></body></html>';

describe("the validation app at /app/", () => {
  let issuer: TestIssuer;
  let built: RunningGateway;
  let unbuilt: RunningGateway;
  let directory: string;

  before(async () => {
    directory = mkdtempSync(path.join(tmpdir(), "docex-web-"));
    mkdirSync(path.join(directory, "assets"));
    writeFileSync(path.join(directory, "index.html"), INDEX);
    writeFileSync(path.join(directory, "assets", "index-abc123.js"), "console.log('app');\n");
    writeFileSync(path.join(directory, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    issuer = await TestIssuer.start();
    const upstreamUrl = await closedPortUrl();
    built = await startGateway({ issuer, upstreamUrl, configure: (deps) => (deps.webAppDirectory = directory) });
    unbuilt = await startGateway({ issuer, upstreamUrl, configure: (deps) => (deps.webAppDirectory = null) });
  });

  after(async () => {
    await built?.stop();
    await unbuilt?.stop();
    await issuer?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("answers /app/ and every deep link under it with index.html, never cached, under a policy without inline script", async () => {
    for (const url of ["/app/", "/app/documents/4f8b2c1e-0000-4000-8000-000000000000", "/app/queues/acme?status=to_validate"]) {
      const response = await fetch(`${built.url}${url}`);
      expect(response.status, url).to.equal(200);
      expect(response.headers.get("content-type"), url).to.match(/^text\/html/);
      expect(response.headers.get("cache-control"), url).to.equal("no-cache");
      expect(await response.text(), url).to.equal(INDEX);
      const policy = response.headers.get("content-security-policy") ?? "";
      expect(policy).to.equal(APP_CONTENT_SECURITY_POLICY);
      expect(policy).to.include("script-src 'self'").and.include("frame-ancestors 'none'").and.not.include("unsafe-inline");
      expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
    }
  });

  it("serves hashed assets as immutable for a year, and a missing asset is 404 rather than the page", async () => {
    const asset = await fetch(`${built.url}/app/assets/index-abc123.js`);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get("content-type")).to.match(/javascript/);
    expect(asset.headers.get("cache-control")).to.equal("public, max-age=31536000, immutable");
    const missing = await fetch(`${built.url}/app/assets/index-gone.js`);
    expect(missing.status).to.equal(404);
    const icon = await fetch(`${built.url}/app/favicon.svg`);
    expect(icon.status).to.equal(200);
    expect(icon.headers.get("cache-control")).to.equal("public, max-age=3600");
  });

  it("redirects /app to /app/, keeping the query", async () => {
    const response = await fetch(`${built.url}/app?x=1`, { redirect: "manual" });
    expect(response.status).to.equal(301);
    expect(response.headers.get("location")).to.equal("/app/?x=1");
  });

  it("without a built app answers 404 app_not_built and the API routes are unchanged", async () => {
    const response = await fetch(`${unbuilt.url}/app/`);
    expect(response.status).to.equal(404);
    expect(((await response.json()) as { code: string }).code).to.equal("app_not_built");
    const api = await fetch(`${unbuilt.url}/api/v2/queues/q`);
    expect(api.status).to.equal(401);
  });
});
