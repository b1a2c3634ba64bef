import { expect } from "chai";
import { RouteMatcher } from "../src/route-matcher.js";
import { DEFAULT_BODY_LIMIT_BYTES, DOCUMENT_UPLOAD_LIMIT_BYTES, REGISTER_UPLOAD_LIMIT_BYTES, ROUTES } from "../src/routes.js";

describe("route table", () => {
  const matcher = new RouteMatcher(ROUTES);

  const serviceOf = (method: string, path: string) => {
    const match = matcher.match(method, path);
    return match.kind === "found" ? match.route.service : match.kind;
  };

  it("sends each context's paths to the service that owns it", () => {
    expect(serviceOf("POST", "/api/v2/auth/login")).to.equal("auth");
    expect(serviceOf("GET", "/api/v2/auth/.well-known/jwks.json")).to.equal("auth");
    expect(serviceOf("GET", "/api/v2/organizations/acme")).to.equal("membership");
    expect(serviceOf("GET", "/api/v2/organizations/acme/raw-memberships")).to.equal("membership");
    expect(serviceOf("GET", "/api/v2/organizations/acme/audit-log")).to.equal("audit");
    expect(serviceOf("GET", "/api/v2/documents/d1/audit-log")).to.equal("audit");
    expect(serviceOf("GET", "/api/v2/organizations/acme/webhooks")).to.equal("webhook");
    expect(serviceOf("POST", "/api/v2/organizations/acme/webhook-signing-key")).to.equal("webhook");
    expect(serviceOf("POST", "/api/v2/queues/q1/documents")).to.equal("document");
    expect(serviceOf("GET", "/api/v2/documents")).to.equal("document");
    expect(serviceOf("GET", "/api/v2/queues/q1/document-counts")).to.equal("document");
    expect(serviceOf("PATCH", "/api/v2/documents/d1/annotations")).to.equal("document");
    expect(serviceOf("POST", "/api/v2/documents/d1/learn")).to.equal("learning");
    expect(serviceOf("POST", "/api/v2/queues/q1/relearn")).to.equal("learning");
    expect(serviceOf("PUT", "/api/v2/queues/q1/extraction-evaluation")).to.equal("automation");
    expect(serviceOf("DELETE", "/api/v2/queues/q1/approval-automation/r1")).to.equal("automation");
    expect(serviceOf("GET", "/api/v2/queues/q1/registers")).to.equal("register");
    expect(serviceOf("GET", "/api/v2/registers/r1/items")).to.equal("register");
    expect(serviceOf("DELETE", "/api/v2/queues/q1/external-validation-links/document_validation")).to.equal("document");
    expect(serviceOf("POST", "/api/v2/webhooks/w1/deliveries/d1/retry")).to.equal("webhook");
  });

  it("prefers a static segment to a parameter: PUT .../order is the order, PATCH .../order is 405", () => {
    const order = matcher.match("PUT", "/api/v2/queues/q1/accounting-automation-rules/order");
    expect(order.kind === "found" && order.template).to.equal("/api/v2/queues/{queue_id}/accounting-automation-rules/order");
    const patch = matcher.match("PATCH", "/api/v2/queues/q1/accounting-automation-rules/order");
    expect(patch).to.deep.equal({
      kind: "method_not_allowed",
      template: "/api/v2/queues/{queue_id}/accounting-automation-rules/order",
      allow: ["PUT"],
    });
    const rule = matcher.match("PATCH", "/api/v2/queues/q1/accounting-automation-rules/0b0c0d0e-0000-4000-8000-000000000000");
    expect(rule.kind === "found" && rule.template).to.equal("/api/v2/queues/{queue_id}/accounting-automation-rules/{automation_rule_id}");
  });

  it("marks exactly the login, token-exchange, onboarding, reset, invitation-acceptance, logout and JWKS routes as public", () => {
    const publicRoutes = ROUTES.filter((route) => route.access === "public").map((route) => `${route.method} ${route.path}`);
    expect(publicRoutes).to.have.members([
      "POST /auth/login",
      "POST /auth/magic-link",
      "POST /auth/magic-login",
      "POST /auth/social-login",
      "POST /auth/refresh",
      "POST /auth/logout",
      "POST /auth/register",
      "POST /auth/verify-onboarding-pin",
      "POST /auth/password-reset",
      "GET /auth/password-change-token",
      "POST /auth/change-password",
      "POST /auth/accept-invitation",
      "GET /auth/.well-known/jwks.json",
    ]);
  });

  it("raises the body limit only for document uploads (26 MiB) and POST /registers (50 MiB)", () => {
    const large = ROUTES.filter((route) => route.bodyLimitBytes !== DEFAULT_BODY_LIMIT_BYTES);
    expect(large.map((route) => `${route.method} ${route.path} ${route.bodyLimitBytes}`)).to.deep.equal([
      `POST /queues/{queue_id}/documents ${DOCUMENT_UPLOAD_LIMIT_BYTES}`,
      `POST /registers ${REGISTER_UPLOAD_LIMIT_BYTES}`,
    ]);
  });

  it("tolerates a trailing slash, matches HEAD as GET and ignores nothing else", () => {
    expect(serviceOf("GET", "/api/v2/queues/q1/")).to.equal("document");
    expect(serviceOf("HEAD", "/api/v2/queues/q1")).to.equal("document");
    expect(serviceOf("GET", "/api/v2/queues//documents")).to.equal("not_found");
    expect(serviceOf("GET", "/api/v2/queues/./documents")).to.equal("not_found");
    expect(serviceOf("GET", "/api/v2")).to.equal("not_found");
    expect(serviceOf("GET", "/healthz")).to.equal("not_found");
  });

  it("lists no method of a template twice", () => {
    expect(() => new RouteMatcher([...ROUTES, ROUTES[0]!])).to.throw(/listed twice/);
  });
});
