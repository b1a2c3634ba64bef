import { randomUUID } from "node:crypto";
import type { AccessTokenVerifier } from "@docex/kit/auth";
import { createHttpApp, dataOf, describedRoutes, mountedRoutes, pageOf, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { expect } from "chai";
import { z } from "zod";
import type { AutomationRules } from "../src/domain/automation-rules.js";
import type { QueueAutomation } from "../src/domain/queue-automation.js";
import { extractionEvaluationSchema, queueWithAnnotationSchemaSchema, ruleSchemas } from "../src/http/dto.js";
import { automationRoutes } from "../src/http/routes.js";
import { type Reply, Stack } from "./support/stack.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { type?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>;
}
type Paths = Record<string, Record<string, Operation>>;

const METHODS_WITH_BODY = new Set(["post", "put", "patch"]);

function operationsOf(paths: Paths): Array<{ route: string; path: string; method: string; operation: Operation }> {
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
}

async function pathsOf(baseUrl: string): Promise<Paths> {
  const served = await fetch(`${baseUrl}/openapi.json`);
  expect(served.status).to.equal(200);
  return ((await served.json()) as { paths: Paths }).paths;
}

/** The body fits the schema and carries nothing it does not declare (zod objects drop unknown keys). */
function expectConforms(schema: z.ZodType, reply: Reply): void {
  const parsed = schema.safeParse(reply.body);
  expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues)).to.equal(true);
  expect(parsed.data).to.deep.equal(reply.body);
}

describe("OpenAPI of the automation service: every /api/v2 route described, every answer as described", function () {
  this.timeout(60_000);
  let stack: Stack;
  let paths: Paths;

  before(async () => {
    stack = await Stack.start();
    paths = await pathsOf(`http://127.0.0.1:${stack.automation.httpPort}`);
  });
  after(async () => {
    await stack?.stop();
  });

  /** One operation of a published document, by `METHOD /path`. */
  const operationAt = (from: Paths, route: string) => {
    const [method, path] = route.split(" ") as [string, string];
    return from[path]?.[method.toLowerCase()];
  };

  /** The JSON schema /openapi.json publishes for one answer, e.g. `PATCH /api/v2/queues/{queue_id}/automation-rules` 200. */
  const published = (from: Paths, route: string, status: number) =>
    operationAt(from, route)?.responses[String(status)]?.content?.["application/json"]?.schema;

  /** The answer has the status and fits the zod schema, and that schema is exactly what /openapi.json publishes for it. */
  const expectAnswer = (reply: Reply, route: string, status: number, schema: z.ZodType) => {
    expect(reply.status, `${route}: ${JSON.stringify(reply.body)}`).to.equal(status);
    const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" });
    expect(published(paths, route, status), route).to.deep.equal(json);
    expectConforms(schema, reply);
  };

  it("mounts exactly the operations it describes, the same that /openapi.json lists", () => {
    // The routes of the running service, mounted once more on an app of their own: the handlers never run here.
    const { api, routes } = automationRoutes({ queues: {} as QueueAutomation, rules: {} as AutomationRules }, {} as AccessTokenVerifier);
    const app = createHttpApp({
      logger: createLogger("automation-openapi-test", "silent"),
      metrics: new Metrics("automation-openapi-test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes,
      api,
    });
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    // `router.all` answers 405 with Allow on a described path; it is no operation of its own.
    const methodGuards = mounted.filter((route) => route.startsWith("_ALL "));
    const operations = mounted.filter((route) => !route.startsWith("_ALL "));
    expect(operations).to.have.lengthOf(14);
    expect(operations).to.have.members(describedRoutes(api));
    const describedPaths = new Set(describedRoutes(api).map((route) => route.split(" ")[1]));
    expect(methodGuards).to.have.lengthOf(9);
    for (const guard of methodGuards) expect(describedPaths.has(guard.split(" ")[1]), guard).to.equal(true);
    expect(operationsOf(paths).map(({ route }) => route)).to.have.members(describedRoutes(api));
  });

  it("serves every listed operation: without a token each answers 401, none is an unknown route", async () => {
    for (const { route, path, method } of operationsOf(paths)) {
      const url = `http://127.0.0.1:${stack.automation.httpPort}${path.replace(/\{[a-z_]+\}/g, randomUUID())}`;
      expect((await fetch(url, { method: method.toUpperCase() })).status, route).to.equal(401);
    }
  });

  it("gives each operation a unique operationId, a summary, tags, described path parameters, a 2xx answer and problem answers", () => {
    const ids = new Set<string>();
    for (const { route, path, method, operation } of operationsOf(paths)) {
      expect(operation.operationId, route).to.match(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId!), `${route}: operationId repeated`).to.equal(false);
      ids.add(operation.operationId!);
      expect(operation.summary, route).to.be.a("string").and.not.be.empty;
      expect(operation.tags, route).to.deep.equal(["Queue automation"]);
      for (const name of path.match(/\{[a-z_]+\}/g) ?? []) {
        const parameter = operation.parameters?.find((candidate) => candidate.in === "path" && `{${candidate.name}}` === name);
        expect(parameter?.description, `${route} ${name}`).to.be.a("string").and.not.be.empty;
      }
      const success = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
      expect(success, route).to.have.lengthOf(1);
      const answer = operation.responses[success[0]!]!;
      if (success[0] === "204") expect(answer.content, route).to.equal(undefined);
      else expect(answer.content?.["application/json"]?.schema, route).to.be.an("object");
      if (success[0] === "201") expect(answer.headers, route).to.have.property("Location");
      expect(operation.responses, route).to.include.keys("400", "401", "404", "503");
      if (METHODS_WITH_BODY.has(method)) {
        expect(operation.requestBody?.required, route).to.equal(true);
        expect(operation.requestBody?.content["application/json"]?.schema.type, route).to.equal("object");
        expect(operation.responses, route).to.include.keys("413", "415");
      } else {
        expect(operation.requestBody, route).to.equal(undefined);
      }
    }
    expect(paths["/api/v2/queues/{queue_id}/accounting-automation"]!.patch!.parameters![0]!.description).to.include("UUID or humanized id");
    // Rule params are checked in the domain; their published form still shows each action's shape.
    const paramsOf = (route: string) =>
      // biome-ignore lint/suspicious/noExplicitAny: walking the published JSON schema
      (operationAt(paths, route)!.requestBody!.content["application/json"]!.schema as any).properties.params;
    const approvalShapes = paramsOf("POST /api/v2/queues/{queue_id}/approval-automation").anyOf;
    expect(approvalShapes.map((shape: { title: string }) => shape.title)).to.deep.equal([
      "assign_approval_route",
      "assign_approvers",
      "move_to_next_stage",
    ]);
    expect(paramsOf("PATCH /api/v2/queues/{queue_id}/approval-automation/{automation_rule_id}").anyOf).to.deep.equal(approvalShapes);
    expect(paramsOf("POST /api/v2/queues/{queue_id}/accounting-automation-rules").anyOf[0].properties).to.have.key("set");
  });

  it("publishes the queue its switches answer with exactly as the document service publishes its queue", async () => {
    const document = await pathsOf(`http://127.0.0.1:${stack.document.httpPort}`);
    const documentQueue = published(document, "GET /api/v2/queues/{queue_id}", 200);
    expect(documentQueue).to.be.an("object");
    for (const path of ["accounting-automation", "automation-rules", "extraction-evaluation"])
      expect(published(paths, `PATCH /api/v2/queues/{queue_id}/${path}`, 200), path).to.deep.equal(documentQueue);
  });

  it("answers real requests with bodies that fit the schemas it publishes", async () => {
    const org = await stack.organization("openapi");
    const { owner, queueId } = org;
    const queue = dataOf(queueWithAnnotationSchemaSchema);
    for (const path of ["accounting-automation", "automation-rules", "extraction-evaluation"]) {
      const route = `PATCH /api/v2/queues/{queue_id}/${path}`;
      expectAnswer(await owner.patch(`/queues/${org.queueHumanizedId}/${path}`, { status: "enabled" }), route, 200, queue);
    }
    const evaluation = await owner.put(`/queues/${queueId}/extraction-evaluation`, {
      document_confidence: 90,
      fields: [
        { key: "total_due", min_confidence: 80, required: true },
        { key: "activity", min_confidence: 60, required: false },
      ],
    });
    expectAnswer(evaluation, "PUT /api/v2/queues/{queue_id}/extraction-evaluation", 200, dataOf(extractionEvaluationSchema));
    const switched = await owner.patch(`/queues/${queueId}/extraction-evaluation`, { status: "disabled" });
    expectAnswer(switched, "PATCH /api/v2/queues/{queue_id}/extraction-evaluation", 200, queue);
    expect(switched.body.data.extraction_evaluation.fields).to.have.lengthOf(2);

    const accounting = "/api/v2/queues/{queue_id}/accounting-automation-rules";
    const rule = ruleSchemas.accounting;
    const created = await owner.post(`/queues/${queueId}/accounting-automation-rules`, {
      name: "Acme contract",
      action: "apply_accounting_automation",
      params: { set: { contract: "C-ACME", total_due: 100 } },
      conditions: {
        match: "all",
        rules: [
          { field: "supplier_name", operator: "contains", value: "acme" },
          { field: "iban", operator: "exists" },
        ],
      },
    });
    expectAnswer(created, `POST ${accounting}`, 201, dataOf(rule));
    expect(created.headers.get("location")).to.equal(`/api/v2/queues/${queueId}/accounting-automation-rules/${created.body.data.id}`);
    const second = await owner.post(`/queues/${queueId}/accounting-automation-rules`, {
      name: "Everyone",
      action: "apply_accounting_automation",
      params: { set: { contract: "C-ANY" } },
      conditions: { match: "any", rules: [] },
    });
    expectAnswer(second, `POST ${accounting}`, 201, dataOf(rule));
    const patched = await owner.patch(`/queues/${queueId}/accounting-automation-rules/${created.body.data.id}`, { name: "Acme" });
    expectAnswer(patched, `PATCH ${accounting}/{automation_rule_id}`, 200, dataOf(rule));
    const ordered = await owner.put(`/queues/${queueId}/accounting-automation-rules/order`, {
      rule_ids: [second.body.data.id, created.body.data.id],
    });
    expectAnswer(ordered, `PUT ${accounting}/order`, 200, dataOf(z.array(rule)));
    expectAnswer(await owner.get(`/queues/${queueId}/accounting-automation-rules?page_size=1`), `GET ${accounting}`, 200, pageOf(rule));
    const deleted = await owner.delete(`/queues/${queueId}/accounting-automation-rules/${second.body.data.id}`);
    expect(deleted.status).to.equal(204);
    expect(paths[`${accounting}/{automation_rule_id}`]!.delete!.responses["204"]).to.not.have.property("content");

    const approval = "/api/v2/queues/{queue_id}/approval-automation";
    const approvalRule = ruleSchemas.approval;
    const approverA = await org.invite("approver");
    const approverB = await org.invite("approver");
    const anyDocument = { match: "all", rules: [] };
    for (const [action, params] of [
      ["assign_approval_route", { stages: [{ approver_ids: [approverA] }, { approver_ids: [approverA, approverB], min_approvals: 2 }] }],
      ["assign_approvers", { approver_ids: [approverB] }],
      ["move_to_next_stage", {}],
    ] as const) {
      const reply = await owner.post(`/queues/${queueId}/approval-automation`, { name: action, action, params, conditions: anyDocument });
      expectAnswer(reply, `POST ${approval}`, 201, dataOf(approvalRule));
    }
    const listed = await owner.get(`/queues/${queueId}/approval-automation`);
    expectAnswer(listed, `GET ${approval}`, 200, pageOf(approvalRule));
    expect(listed.body.data.map((listedRule: { action: string }) => listedRule.action)).to.deep.equal([
      "assign_approval_route",
      "assign_approvers",
      "move_to_next_stage",
    ]);
  });
});
