import { randomUUID } from "node:crypto";
import { createEvent } from "@docex/events";
import { TokenVerifier } from "@docex/kit/auth";
import { createHttpApp, describedRoutes, mountedRoutes, pageOf, problemSchema, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { eventually, TestIssuer } from "@docex/testkit";
import { expect } from "chai";
import type { AuditLog } from "../src/domain/audit-log.js";
import { auditEntrySchema } from "../src/http/responses.js";
import { auditHttp } from "../src/http/routes.js";
import { AuditHarness } from "./support/harness.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, unknown>;
}

describe("audit's OpenAPI description: every route described, and real answers fit it", () => {
  let h: AuditHarness;
  let paths: Record<string, Record<string, Operation>>;

  before(async () => {
    h = await AuditHarness.start();
    const answer = await fetch(`${h.baseUrl}/openapi.json`);
    expect(answer.status).to.equal(200);
    paths = ((await answer.json()) as { paths: typeof paths }).paths;
  });

  after(async () => {
    await h?.stop();
  });

  it("describes exactly the two audit-log routes the app mounts, each with an operationId, tags, 200, 401, 403 and 404", async () => {
    const issuer = await TestIssuer.start();
    try {
      // Mounting never touches the domain, so an empty one shows what the service's app mounts.
      const { api, routes } = auditHttp(
        {} as AuditLog,
        new TokenVerifier({ jwksUri: issuer.jwksUri, issuer: issuer.issuer, audience: issuer.audience }),
      );
      const app = createHttpApp({
        logger: createLogger("audit-openapi-test", "silent"),
        metrics: new Metrics("audit_openapi_test", { defaultMetrics: false }),
        readiness: new Readiness(),
        routes,
        api,
      });
      const operations = mountedRoutes(app).filter((route) => route.includes(" /api/v2/") && !route.startsWith("_ALL "));
      expect(operations).to.have.members(describedRoutes(api));
      expect(operations).to.have.members([
        "GET /api/v2/organizations/{organization_id}/audit-log",
        "GET /api/v2/documents/{document_id}/audit-log",
      ]);
    } finally {
      await issuer.stop();
    }
    for (const [path, methods] of Object.entries(paths)) {
      for (const operation of Object.values(methods)) {
        expect(operation.operationId, path).to.match(/^get[A-Za-z]+AuditLog$/);
        expect(operation.tags, path).to.deep.equal(["Audit log"]);
        expect(Object.keys(operation.responses), path).to.include.members(["200", "401", "403", "404"]);
      }
    }
  });

  it("answers with bodies that fit the declared schemas", async () => {
    const team = await h.team(["viewer"]);
    const documentId = randomUUID();
    const event = createEvent("document.created", {
      organization_id: team.organization.id,
      data: {
        organization_id: team.organization.id,
        document_id: documentId,
        queue_id: randomUUID(),
        workspace_id: randomUUID(),
        file_name: "a.pdf",
        file_sha256: "d".repeat(64),
      },
      actor_user_id: team.owner.id,
    });
    await h.bus.publish(`docex.${event.type}`, event, { msgId: event.id });
    const page = await eventually(async () => {
      const answer = await h.call("GET", `/documents/${documentId}/audit-log`, { as: team.owner });
      return answer.status === 200 ? answer.body : undefined;
    }, 10_000);
    expect(pageOf(auditEntrySchema).parse(page).data).to.have.length(1);
    const byHumanizedId = await h.call("GET", `/organizations/${team.organization.humanized_id}/audit-log`, { as: team.owner });
    expect(pageOf(auditEntrySchema).parse(byHumanizedId.body).pagination.total).to.be.at.least(1);
    problemSchema.parse((await h.call("GET", `/organizations/${team.organization.id}/audit-log`, { as: team.members[0]! })).body);
  });
});
