import { randomUUID } from "node:crypto";
import { TokenVerifier } from "@docex/kit/auth";
import { createHttpApp, describedRoutes, mountedRoutes, problemSchema, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { expect } from "chai";
import type { FeedbackIntake } from "../src/domain/feedback.js";
import { learningHttp } from "../src/http/routes.js";
import { type OrganizationFixture, Stack } from "./support/stack.js";
import type { Reply } from "./support/user-api.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: unknown }>;
}

interface OpenApiPaths {
  paths: Record<string, Record<string, Operation>>;
}

function operationsOf(document: OpenApiPaths): Array<{ route: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );
}

describe("learning's OpenAPI description: every route described, and real answers fit it", function () {
  this.timeout(60_000);
  let stack: Stack;
  let organization: OrganizationFixture;
  let document: OpenApiPaths;

  /** The operation's declared answer for the reply's status, which must exist for the reply to be documented. */
  const declared = (path: string, reply: Reply) => {
    const operation = document.paths[path]?.post;
    expect(operation, `POST ${path} is described`).to.not.equal(undefined);
    const response = operation!.responses[String(reply.status)];
    expect(response, `POST ${path} declares ${reply.status}`).to.not.equal(undefined);
    return response!;
  };

  before(async () => {
    stack = await Stack.start();
    organization = await stack.organization("described");
    const answer = await fetch(`${stack.learningUrl}/openapi.json`);
    expect(answer.status).to.equal(200);
    document = (await answer.json()) as OpenApiPaths;
  });

  after(async () => {
    await stack?.stop();
  });

  it("describes exactly the routes the app mounts under /api/v2, and publishes those at /openapi.json", () => {
    // Mounting never touches the domain, so an empty one shows what the service's app mounts.
    const verifier = new TokenVerifier({ jwksUri: stack.issuer.jwksUri, issuer: stack.issuer.issuer, audience: stack.issuer.audience });
    const { api, routes } = learningHttp({} as FeedbackIntake, verifier);
    const app = createHttpApp({
      logger: createLogger("learning-openapi-test", "silent"),
      metrics: new Metrics("learning_openapi_test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes,
      api,
    });
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    // `router.all` answers 405 with Allow for the other methods of a described path; it is not an operation.
    const operations = mounted.filter((route) => !route.startsWith("_ALL "));
    expect(operations).to.have.members(describedRoutes(api));
    expect(operations).to.have.members([
      "POST /api/v2/documents/{document_id}/learn",
      "POST /api/v2/documents/{document_id}/relearn",
      "POST /api/v2/queues/{queue_id}/relearn",
    ]);
    expect(mounted.filter((route) => route.startsWith("_ALL ")).map((route) => route.replace("_ALL", "POST"))).to.have.members(operations);
    expect(operationsOf(document).map(({ route }) => route)).to.have.members(describedRoutes(api));
  });

  it("gives every operation a unique operationId, a summary, tags, a 204 answer, a token and its JSON request body", () => {
    const operations = operationsOf(document);
    expect(new Set(operations.map(({ operation }) => operation.operationId)).size).to.equal(operations.length);
    for (const { route, operation } of operations) {
      expect(operation.operationId, route).to.match(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, route).to.be.a("string").and.not.equal("");
      expect(operation.tags, route).to.deep.equal(["Relearning"]);
      expect(operation.security, `${route} needs a token`).to.equal(undefined);
      expect(operation.responses["204"], route).to.be.an("object").that.does.not.have.property("content");
      expect(Object.keys(operation.responses), route).to.include.members(["400", "401", "403", "404"]);
      expect(operation.requestBody?.content["application/json"]?.schema, route).to.be.an("object");
    }
    const queueId = document.paths["/api/v2/queues/{queue_id}/relearn"]!.post!.parameters!.find(
      (parameter) => parameter.name === "queue_id",
    );
    expect(queueId).to.include({ in: "path", description: "UUID or humanized id of the queue" });
  });

  it("answers a relearn with the declared empty 204, and a stranger's document with a declared problem", async () => {
    const owner = organization.owner;
    const workspace = await owner.document.post("/workspaces", { organization_id: organization.id, name: "Payables" });
    expect(workspace.status).to.equal(201);
    const queue = await owner.document.post("/queues", { workspace_id: workspace.body.data.id, name: "Invoices" });
    expect(queue.status).to.equal(201);

    const relearned = await owner.learning.post(`/queues/${queue.body.data.humanized_id}/relearn`, {
      tax_id: "CZ12345678",
      register_id: null,
      name: null,
      field_key: "iban",
      value: "CZ6508000000192000145399",
    });
    expect(relearned.status).to.equal(204);
    expect(relearned.body).to.equal(undefined);
    expect(declared("/api/v2/queues/{queue_id}/relearn", relearned)).to.not.have.property("content");

    const unknown = await owner.learning.post(`/documents/${randomUUID()}/learn`, { annotations: {} });
    expect(unknown.status).to.equal(404);
    expect(declared("/api/v2/documents/{document_id}/learn", unknown)).to.have.property("content");
    expect(problemSchema.parse(unknown.body).code).to.equal("document_not_found");

    const invalid = await owner.learning.post(`/queues/${queue.body.data.id}/relearn`, { field_key: "iban" });
    expect(invalid.status).to.equal(400);
    declared("/api/v2/queues/{queue_id}/relearn", invalid);
    expect(problemSchema.parse(invalid.body).errors.map((error) => error.path)).to.include.members([
      "tax_id",
      "register_id",
      "name",
      "value",
    ]);
  });
});
