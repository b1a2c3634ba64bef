import { TokenVerifier } from "@docex/kit/auth";
import { createHttpApp, dataOf, describedRoutes, mountedRoutes, pageOf, problemSchema, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { deliverySchema, receiverHealthSchema, signingKeySchema, webhookListSchema, webhookSchema } from "../src/http/responses.js";
import { type WebhookDomain, webhookHttp } from "../src/http/routes.js";
import { type Answer, WebhookHarness } from "./support/harness.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

interface OpenApiPaths {
  paths: Record<string, Record<string, Operation>>;
}

function operationsOf(document: OpenApiPaths): Array<{ route: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );
}

describe("webhook's OpenAPI description: every route described, and real answers fit it (document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let document: OpenApiPaths;

  const declared = (method: string, path: string, answer: Answer) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path} is described`).to.not.equal(undefined);
    expect(Object.keys(operation!.responses), `${method} ${path} declares ${answer.status}`).to.include(String(answer.status));
    return answer.body;
  };

  before(async () => {
    harness = await WebhookHarness.start();
    const answer = await fetch(`http://127.0.0.1:${harness.webhook.running.httpPort}/openapi.json`);
    expect(answer.status).to.equal(200);
    document = (await answer.json()) as OpenApiPaths;
  });

  after(async () => {
    await harness.stop();
  });

  it("describes exactly the routes the app mounts under /api/v2, and publishes those at /openapi.json", () => {
    const verifier = new TokenVerifier({
      jwksUri: harness.issuer.jwksUri,
      issuer: harness.issuer.issuer,
      audience: harness.issuer.audience,
    });
    const { api, routes } = webhookHttp({} as WebhookDomain, verifier);
    const app = createHttpApp({
      logger: createLogger("webhook-openapi-test", "silent"),
      metrics: new Metrics("webhook_openapi_test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes,
      api,
    });
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    const methodFallbacks = mounted.filter((route) => route.startsWith("_ALL "));
    const operations = mounted.filter((route) => !route.startsWith("_ALL "));
    expect(operations).to.have.members(describedRoutes(api));
    expect(operations).to.have.lengthOf(13);
    const describedPaths = new Set(describedRoutes(api).map((route) => route.split(" ")[1]));
    expect(methodFallbacks.map((route) => route.split(" ")[1])).to.have.members([...describedPaths]);
    expect(operationsOf(document).map(({ route }) => route)).to.have.members(describedRoutes(api));
  });

  it("gives every operation a unique operationId, a summary, tags, a 2xx answer and a token; bodies where routes read them", () => {
    const operations = operationsOf(document);
    expect(new Set(operations.map(({ operation }) => operation.operationId)).size).to.equal(operations.length);
    for (const { route, operation } of operations) {
      expect(operation.operationId, route).to.match(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, route).to.be.a("string").and.not.equal("");
      expect(operation.tags, route).to.be.an("array").that.is.not.empty;
      expect(operation.security, `${route} needs a token`).to.equal(undefined);
      expect(Object.keys(operation.responses), route).to.include("401");
      expect(
        Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status)),
        route,
      ).to.not.be.empty;
    }
    const withBody = operations.filter(({ operation }) => operation.requestBody).map(({ route }) => route);
    expect(withBody).to.have.members(["POST /api/v2/webhooks", "PATCH /api/v2/webhooks/{webhook_id}"]);
    // The queues' external validation links are the document service's (issue 41).
    expect(Object.keys(document.paths).filter((path) => path.includes("external-validation-links"))).to.deep.equal([]);
    expect(document.paths["/api/v2/webhooks"]!.post!.responses["201"]!.headers).to.have.property("Location");
  });

  it("answers every operation with a body that fits its declared schema", async () => {
    const { organization, owner, members } = await harness.team(["editor"]);
    const editor = members[0]!;
    const at = harness.hierarchy(organization.id);
    const receiver = await harness.receiver();

    const key = await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: owner });
    dataOf(signingKeySchema).parse(declared("post", "/api/v2/organizations/{organization_id}/webhook-signing-key", key));
    const rotated = await harness.call("POST", `/organizations/${organization.id}/webhook-signing-key`, { as: owner });
    dataOf(signingKeySchema).parse(declared("post", "/api/v2/organizations/{organization_id}/webhook-signing-key", rotated));
    const readKey = await harness.call("GET", `/organizations/${organization.id}/webhook-signing-key`, { as: owner });
    dataOf(signingKeySchema).parse(declared("get", "/api/v2/organizations/{organization_id}/webhook-signing-key", readKey));

    const created = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url: `${receiver.url}/described`, entity_type: "queue", entity_id: at.queueId, signature_verification: "enabled" },
    });
    const webhook = dataOf(webhookSchema).parse(declared("post", "/api/v2/webhooks", created)).data;
    dataOf(webhookSchema).parse(
      declared("get", "/api/v2/webhooks/{webhook_id}", await harness.call("GET", `/webhooks/${webhook.id}`, { as: owner })),
    );
    const patched = await harness.call("PATCH", `/webhooks/${webhook.id}`, { as: owner, body: { destination_id: null } });
    dataOf(webhookSchema).parse(declared("patch", "/api/v2/webhooks/{webhook_id}", patched));
    for (const [path, id] of [
      ["/api/v2/documents/{document_id}/webhooks", at.documentId],
      ["/api/v2/queues/{queue_id}/webhooks", at.queueId],
      ["/api/v2/workspaces/{workspace_id}/webhooks", at.workspaceId],
      ["/api/v2/organizations/{organization_id}/webhooks", at.organizationId],
    ] as const) {
      const listed = await harness.call("GET", path.replace(/\{[a-z_]+\}/, id).replace("/api/v2", ""), { as: editor });
      webhookListSchema.parse(declared("get", path, listed));
    }

    await harness.statusChanged(at);
    await receiver.waitForRequests(1);
    const listed = await eventually(async () => {
      const answer = await harness.deliveries(owner, webhook.id);
      return answer.body.data[0]?.status === "succeeded" ? answer : undefined;
    });
    const page = pageOf(deliverySchema).parse(declared("get", "/api/v2/webhooks/{webhook_id}/deliveries", listed));
    const health = await harness.call("GET", `/webhooks/${webhook.id}/health`, { as: editor });
    const report = dataOf(receiverHealthSchema).parse(declared("get", "/api/v2/webhooks/{webhook_id}/health", health)).data;
    expect(report.attempts).to.be.at.least(1);
    const retried = await harness.call("POST", `/webhooks/${webhook.id}/deliveries/${page.data[0]!.id}/retry`, { as: owner });
    dataOf(deliverySchema).parse(declared("post", "/api/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", retried));

    const forbidden = await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: editor });
    expect(forbidden.status).to.equal(403);
    problemSchema.parse(declared("delete", "/api/v2/webhooks/{webhook_id}", forbidden));
    const deleted = await harness.call("DELETE", `/webhooks/${webhook.id}`, { as: owner });
    declared("delete", "/api/v2/webhooks/{webhook_id}", deleted);
  });
});
