import { ROUTES } from "@docex/gateway";
import { Validator } from "@seriousme/openapi-schema-validator";
import { expect } from "chai";
import { type Stack, sharedStack } from "./support/stack.js";

/**
 * The merged OpenAPI document against the gateway's route table, on the running stack: a route
 * without its OpenAPI entry, or an entry without its route, fails; and the document itself is
 * a valid OpenAPI 3.1 document.
 */
describe("the OpenAPI document of the whole API (GET /api/v2/openapi.json through the gateway)", function () {
  this.timeout(60_000);
  let stack: Stack;
  // biome-ignore lint/suspicious/noExplicitAny: the document is asserted field by field
  let document: any;

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    const answer = await stack.call("GET", "/openapi.json");
    expect(answer.status).to.equal(200);
    document = answer.body;
  });

  it("has every service's part", () => {
    expect(document).not.to.have.property("x-docex-missing");
  });

  it("describes exactly the routes the gateway serves, method by method", () => {
    const described = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const routed = ROUTES.map((route) => `${route.method} /api/v2${route.path}`);
    expect(
      described.filter((route) => !routed.includes(route)),
      "described but not routed",
    ).to.deep.equal([]);
    expect(
      routed.filter((route) => !described.includes(route)),
      "routed but not described",
    ).to.deep.equal([]);
  });

  it("marks exactly the gateway's public routes as callable without a token", () => {
    for (const route of ROUTES) {
      const operation = document.paths[`/api/v2${route.path}`]?.[route.method.toLowerCase()];
      if (!operation) continue;
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      expect(isPublic, `${route.method} ${route.path}`).to.equal(route.access === "public");
    }
  });

  it("is a valid OpenAPI 3.1 document with unique operation ids", async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? null).slice(0, 2000)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
