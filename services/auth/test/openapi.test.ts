import { createHttpApp, dataOf, describedRoutes, mountedRoutes, problemSchema, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { tokenIn } from "@docex/testkit";
import { expect } from "chai";
import type { AuthDomain } from "../src/domain/auth-domain.js";
import { jwksSchema, passwordChangeSchema } from "../src/http/responses.js";
import { authHttp } from "../src/http/routes.js";
import { tokenResponseSchema } from "../src/http/token-response.js";
import { type Answer, AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, unknown>;
}

interface OpenApiPaths {
  paths: Record<string, Record<string, Operation>>;
}

const PASSWORD = "correct horse battery staple";

function operationsOf(document: OpenApiPaths): Array<{ route: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
  );
}

describe("auth's OpenAPI description: every route described, and real answers fit it", () => {
  let auth: AuthHarness;
  let document: OpenApiPaths;

  /** The operation's declared answer for this status, which must exist for the answer to be documented. */
  const declared = (method: string, path: string, answer: Answer) => {
    const operation = document.paths[`/api/v2${path}`]?.[method];
    expect(operation, `${method} ${path} is described`).to.not.equal(undefined);
    expect(Object.keys(operation!.responses), `${method} ${path} declares ${answer.status}`).to.include(String(answer.status));
    return answer.body;
  };

  before(async () => {
    auth = await AuthHarness.start();
    const answer = await fetch(`${auth.baseUrl}/openapi.json`);
    expect(answer.status).to.equal(200);
    document = (await answer.json()) as OpenApiPaths;
  });

  after(async () => {
    await auth?.stop();
  });

  it("describes exactly the routes the app mounts under /api/v2, and publishes those at /openapi.json", () => {
    // Mounting never touches the domain, so an empty one shows what the service's app mounts.
    const { api, routes } = authHttp({} as AuthDomain, auth.verifier());
    const app = createHttpApp({
      logger: createLogger("auth-openapi-test", "silent"),
      metrics: new Metrics("auth_openapi_test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes,
      api,
    });
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    expect(mounted).to.have.members(describedRoutes(api));
    expect(mounted).to.have.lengthOf(17);
    expect(operationsOf(document).map(({ route }) => route)).to.have.members(describedRoutes(api));
  });

  it("gives every operation a unique operationId, a summary, tags, a 2xx answer, and a JSON request body where the route reads one", () => {
    const operations = operationsOf(document);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).to.equal(operations.length);
    for (const { route, operation } of operations) {
      expect(operation.operationId, route).to.match(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, route).to.be.a("string").and.not.equal("");
      expect(operation.tags, route).to.deep.equal(["Authentication"]);
      expect(
        Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status)),
        route,
      ).to.equal(true);
    }
    const withBody = operations.filter(({ operation }) => operation.requestBody).map(({ route }) => route);
    const posts = operations.filter(({ route }) => route.startsWith("POST ")).map(({ route }) => route);
    expect(withBody).to.have.members(posts.filter((route) => route !== "POST /api/v2/auth/totp"));
    for (const { route, operation } of operations.filter(({ operation }) => operation.requestBody)) {
      expect(operation.requestBody!.content["application/json"]?.schema, route).to.be.an("object");
    }
  });

  it("marks the token-less operations public and the TOTP and erasure ones as needing a token", () => {
    const needToken = operationsOf(document)
      .filter(({ operation }) => operation.security === undefined)
      .map(({ route }) => route);
    expect(needToken).to.have.members([
      "POST /api/v2/auth/totp",
      "POST /api/v2/auth/totp/confirm",
      "DELETE /api/v2/auth/totp",
      "DELETE /api/v2/auth/me",
    ]);
  });

  it("answers login, JWKS, the password-change token and a failed login exactly as described", async () => {
    const email = newEmail("openapi");
    const { tokens } = await auth.onboard(email, PASSWORD);
    dataOf(tokenResponseSchema).parse(declared("post", "/auth/change-password", tokens));

    const login = await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() });
    expect(login.status).to.equal(200);
    expect(login.headers.get("cache-control")).to.equal("no-store");
    dataOf(tokenResponseSchema).parse(declared("post", "/auth/login", login));

    const jwks = await auth.call("GET", "/auth/.well-known/jwks.json");
    expect(jwks.status).to.equal(200);
    expect(jwksSchema.parse(declared("get", "/auth/.well-known/jwks.json", jwks)).keys).to.not.be.empty;

    const address = newAddress();
    const before = auth.smtp.mailsTo(email).length;
    expect((await auth.call("POST", "/auth/password-reset", { body: { email }, address })).status).to.equal(202);
    const mail = await auth.smtp.waitForMail(email, before + 1);
    const inspected = await auth.call("GET", `/auth/password-change-token?token=${tokenIn(mail)}`, { address });
    expect(inspected.status).to.equal(200);
    expect(dataOf(passwordChangeSchema).parse(declared("get", "/auth/password-change-token", inspected)).data.purpose).to.equal("reset");

    const refused = await auth.call("POST", "/auth/login", { body: { email, password: "not the password at all" }, address: newAddress() });
    expect(refused.status).to.equal(401);
    problemSchema.parse(declared("post", "/auth/login", refused));
  });
});
