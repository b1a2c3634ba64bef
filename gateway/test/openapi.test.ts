import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiDescription, createHttpApp, dataOf, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { closeHttp, listen } from "@docex/kit/runtime";
import { TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import { z } from "zod";
import { closedPortUrl, type RunningGateway, startGateway } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
type Json = any;

/** A service with one described operation, serving its part at /openapi.json as every service does. */
async function describedService(path: string, tag: string): Promise<Server> {
  const api = new ApiDescription(tag);
  const app = createHttpApp({
    logger: createLogger("described", "silent"),
    metrics: new Metrics("described", { defaultMetrics: false }),
    readiness: new Readiness(),
    api,
    routes: (router) => {
      api.route(
        router,
        {
          method: "get",
          path,
          operationId: `get${tag}`,
          summary: `Read a ${tag}`,
          tags: [tag],
          responses: { 200: { description: "Found", schema: dataOf(z.object({ id: z.string() })) } },
        },
        (_input, _req, res) => {
          res.json({ data: { id: "x" } });
        },
      );
    },
  });
  return listen(app, "127.0.0.1", 0);
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe("OpenAPI document and API reference page at the gateway", () => {
  let issuer: TestIssuer;
  let queues: Server;
  let webhooks: Server;
  let gateway: RunningGateway;
  let partial: RunningGateway;

  before(async () => {
    issuer = await TestIssuer.start();
    queues = await describedService("/api/v2/queues/{queue_id}", "Queues");
    webhooks = await describedService("/api/v2/webhooks/{webhook_id}", "Webhooks");
    const down = await closedPortUrl();
    gateway = await startGateway({ issuer, upstreamUrl: urlOf(queues), urls: { webhook: urlOf(webhooks) } });
    partial = await startGateway({ issuer, upstreamUrl: urlOf(queues), urls: { webhook: down } });
  });

  after(async () => {
    await Promise.all([gateway.stop(), partial.stop()]);
    await Promise.all([closeHttp(queues, 500), closeHttp(webhooks, 500), issuer.stop()]);
  });

  it("merges every service's operations into one OpenAPI 3.1 document, served without a token", async () => {
    const response = await fetch(`${gateway.url}/api/v2/openapi.json`);
    expect(response.status).to.equal(200);
    const document = (await response.json()) as Json;
    expect(document.openapi).to.equal("3.1.0");
    expect(document.paths).to.have.keys(["/api/v2/queues/{queue_id}", "/api/v2/webhooks/{webhook_id}"]);
    expect(document.paths["/api/v2/webhooks/{webhook_id}"].get.operationId).to.equal("getWebhooks");
    expect(document.tags.map((tag: { name: string }) => tag.name)).to.deep.equal(["Queues", "Webhooks"]);
    expect(document.components.securitySchemes.bearerAuth).to.include({ type: "http", scheme: "bearer" });
    expect(document.components.schemas.Problem.required).to.include.members(["type", "status", "code", "request_id"]);
    expect(document).not.to.have.property("x-docex-missing");
  });

  it("describes the events and validation calls integrators receive as OpenAPI webhooks", async () => {
    const { webhooks: described } = (await (await fetch(`${gateway.url}/api/v2/openapi.json`)).json()) as Json;
    expect(described).to.have.keys(["document_status_changed", "queue_created", "initial_document_validation", "document_validation"]);
    const statusChanged = described.document_status_changed.post.requestBody.content["application/json"].schema;
    expect(statusChanged.required).to.have.members(["document_id", "queue_id", "status", "webhook_event"]);
    const answer = described.document_validation.post.responses["200"].content["application/json"].schema;
    expect(answer.anyOf).to.have.length(2);
  });

  it("names a service that did not answer instead of failing the whole document", async () => {
    const document = (await (await fetch(`${partial.url}/api/v2/openapi.json`)).json()) as Json;
    expect(document["x-docex-missing"]).to.deep.equal(["webhook"]);
    expect(document.paths).to.have.keys(["/api/v2/queues/{queue_id}"]);
  });

  it("serves the API reference page and its assets from the gateway itself", async () => {
    const page = await fetch(`${gateway.url}/api/v2/docs`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.include("/api/v2/docs/assets/swagger-ui-bundle.js");
    expect(html).not.to.match(/https?:\/\//);
    const bundle = await fetch(`${gateway.url}/api/v2/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get("content-type")).to.match(/javascript/);
    expect(await (await fetch(`${gateway.url}/api/v2/docs/reference.js`)).text()).to.include("/api/v2/openapi.json");
    expect((await fetch(`${gateway.url}/api/v2/docs/assets/nothing.js`)).status).to.equal(404);
  });
});
