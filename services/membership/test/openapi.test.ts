import { TokenVerifier } from "@docex/kit/auth";
import { createHttpApp, dataOf, describedRoutes, mountedRoutes, pageOf, problemSchema, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { expect } from "chai";
import { z } from "zod";
import { membershipSchema, organizationSchema, userSchemaSchema } from "../src/http/responses.js";
import { type MembershipDomain, membershipHttp } from "../src/http/routes.js";
import { type Answer, MembershipHarness } from "./support/harness.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
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

describe("membership's OpenAPI description: every route described, and real answers fit it", () => {
  let h: MembershipHarness;
  let document: OpenApiPaths;

  /** The answer's body, once the operation is found to declare the answer's status. */
  const declared = (method: string, path: string, answer: Answer) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path} is described`).to.not.equal(undefined);
    expect(Object.keys(operation!.responses), `${method} ${path} declares ${answer.status}`).to.include(String(answer.status));
    return answer.body;
  };

  before(async () => {
    h = await MembershipHarness.start();
    const answer = await fetch(`${h.baseUrl}/openapi.json`);
    expect(answer.status).to.equal(200);
    document = (await answer.json()) as OpenApiPaths;
  });

  after(async () => {
    await h?.stop();
  });

  it("describes exactly the routes the app mounts under /api/v2, and publishes those at /openapi.json", () => {
    // Mounting never touches the domain, so an empty one shows what the service's app mounts.
    const verifier = new TokenVerifier({ jwksUri: h.issuer.jwksUri, issuer: h.issuer.issuer, audience: h.issuer.audience });
    const { api, routes } = membershipHttp({} as MembershipDomain, verifier);
    const app = createHttpApp({
      logger: createLogger("membership-openapi-test", "silent"),
      metrics: new Metrics("membership_openapi_test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes,
      api,
    });
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    // `router.all` answers 405 with Allow for the other methods of a described path; it is not an operation.
    const methodFallbacks = mounted.filter((route) => route.startsWith("_ALL "));
    const operations = mounted.filter((route) => !route.startsWith("_ALL "));
    expect(operations).to.have.members(describedRoutes(api));
    expect(operations).to.have.lengthOf(8);
    const describedPaths = new Set(describedRoutes(api).map((route) => route.split(" ")[1]));
    expect(methodFallbacks.map((route) => route.split(" ")[1])).to.have.members([...describedPaths]);
    expect(operationsOf(document).map(({ route }) => route)).to.have.members(describedRoutes(api));
  });

  it("gives every operation a unique operationId, a summary, tags, a 2xx answer, a token, and a JSON request body where the route reads one", () => {
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
      for (const parameter of operation.parameters?.filter((candidate) => candidate.name === "organization_id") ?? []) {
        expect(parameter.description, route).to.equal("UUID or humanized id of the organization");
      }
    }
    const withBody = operations.filter(({ operation }) => operation.requestBody).map(({ route }) => route);
    expect(withBody).to.have.members(
      operations.filter(({ route }) => route.startsWith("POST ") || route.startsWith("PATCH ")).map(({ route }) => route),
    );
    for (const { route, operation } of operations.filter(({ operation }) => operation.requestBody)) {
      expect(operation.requestBody!.content["application/json"]?.schema, route).to.be.an("object");
    }
    expect(document.paths["/api/v2/organizations"]!.post!.responses["201"]!.headers).to.have.property("Location");
  });

  it("answers every operation with a body that fits its declared schema", async () => {
    const { organization, owner, members } = await h.team(["editor"]);
    const editor = members[0]!;

    const created = await h.call("POST", "/organizations", { as: owner, body: { name: "Described Org" } });
    expect(created.status).to.equal(201);
    dataOf(organizationSchema).parse(declared("post", "/api/v2/organizations", created));

    const listed = await h.call("GET", "/organizations?page=1&page_size=1", { as: owner });
    expect(listed.status).to.equal(200);
    expect(pageOf(organizationSchema).parse(declared("get", "/api/v2/organizations", listed)).pagination.total).to.equal(2);

    const one = await h.call("GET", `/organizations/${organization.humanized_id}`, { as: owner });
    dataOf(organizationSchema).parse(declared("get", "/api/v2/organizations/{organization_id}", one));

    const raw = await h.call("GET", `/organizations/${organization.id}/raw-memberships`, { as: owner });
    expect(
      dataOf(z.array(membershipSchema)).parse(declared("get", "/api/v2/organizations/{organization_id}/raw-memberships", raw)).data,
    ).to.have.lengthOf(2);

    const assigned = await h.call("POST", `/organizations/${organization.id}/assign-roles`, {
      as: owner,
      body: [{ operation: "set_role", user_id: editor.id, role: "viewer" }],
    });
    expect(assigned.status).to.equal(200);
    dataOf(z.array(membershipSchema)).parse(declared("post", "/api/v2/organizations/{organization_id}/assign-roles", assigned));

    const schema = await h.call("POST", `/organizations/${organization.id}/manage-user-schema`, {
      as: owner,
      body: { user_id: editor.id, fields: [{ key: "iban", hidden: true }] },
    });
    expect(schema.status).to.equal(200);
    dataOf(userSchemaSchema).parse(declared("post", "/api/v2/organizations/{organization_id}/manage-user-schema", schema));

    const forbidden = await h.call("POST", `/organizations/${organization.id}/assign-roles`, {
      as: editor,
      body: [{ operation: "remove", user_id: owner.id }],
    });
    expect(forbidden.status).to.equal(403);
    problemSchema.parse(declared("post", "/api/v2/organizations/{organization_id}/assign-roles", forbidden));
  });
});
