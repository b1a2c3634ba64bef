import { randomUUID } from "node:crypto";
import type { AccessTokenVerifier } from "@docex/kit/auth";
import { createHttpApp, dataOf, describedRoutes, mountedRoutes, pageOf, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { expect } from "chai";
import { z } from "zod";
import type { Documents } from "../src/domain/documents.js";
import type { Hierarchy } from "../src/domain/hierarchy.js";
import type { Quotas } from "../src/domain/quotas.js";
import type { ValidationLinks } from "../src/domain/validation-links.js";
import type { Exports } from "../src/export/exports.js";
import type { KeptFiles } from "../src/files/kept-files.js";
import type { UploadSlots } from "../src/files/upload-slots.js";
import { documentSchema, queueWithAnnotationSchemaSchema, workspaceSchema } from "../src/http/dto.js";
import { documentRoutes } from "../src/http/routes.js";
import { validationLinkSchema } from "../src/http/validation-link-routes.js";
import type { PaymentBatches } from "../src/payments/payment-batches.js";
import { change } from "./support/changes.js";
import { Harness, type Reply } from "./support/harness.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { type?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>;
}
type Paths = Record<string, Record<string, Operation>>;

/** Decisions on a document say everything by their path. */
const BODILESS = new Set([
  "POST /api/v2/documents/{document_id}/approve",
  "POST /api/v2/documents/{document_id}/reject",
  "POST /api/v2/queues/{queue_id}/inbox-email",
]);
const METHODS_WITH_BODY = new Set(["post", "put", "patch"]);

function operationsOf(paths: Paths): Array<{ route: string; path: string; method: string; operation: Operation }> {
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
}

/** The body fits the schema and carries nothing it does not declare (zod objects drop unknown keys). */
function expectConforms(schema: z.ZodType, reply: Reply): void {
  const parsed = schema.safeParse(reply.body);
  expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues)).to.equal(true);
  expect(parsed.data).to.deep.equal(reply.body);
}

describe("OpenAPI of the document service: every /api/v2 route described, every answer as described", function () {
  this.timeout(30_000);
  let h: Harness;
  let paths: Paths;

  before(async () => {
    h = await Harness.start();
    const served = await fetch(`${h.baseUrl}/openapi.json`);
    expect(served.status).to.equal(200);
    ({ paths } = (await served.json()) as { paths: Paths });
  });
  after(async () => {
    await h?.stop();
  });

  /** The JSON schema /openapi.json publishes for one answer, e.g. `GET /api/v2/queues/{queue_id}` 200. */
  const published = (route: string, status: number) => {
    const [method, path] = route.split(" ") as [string, string];
    return paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.content?.["application/json"]?.schema;
  };

  /** The answer has the status and fits the zod schema, and that schema is exactly what /openapi.json publishes for it. */
  const expectAnswer = (reply: Reply, route: string, status: number, schema: z.ZodType) => {
    expect(reply.status, `${route}: ${JSON.stringify(reply.body)}`).to.equal(status);
    const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" });
    expect(published(route, status), route).to.deep.equal(json);
    expectConforms(schema, reply);
  };

  it("mounts exactly the operations it describes, the same that /openapi.json lists", () => {
    // The routes of the running service, mounted once more on an app of their own: the handlers never run here.
    const { api, routes } = documentRoutes(
      {
        hierarchy: {} as Hierarchy,
        documents: {} as Documents,
        files: {} as KeptFiles,
        slots: {} as UploadSlots,
        quotas: {} as Quotas,
        exports: {} as Exports,
        payments: {} as PaymentBatches,
        validationLinks: {} as ValidationLinks,
      },
      {} as AccessTokenVerifier,
      { maxFileBytes: 1024, spoolDir: "/nonexistent" },
    );
    const app = createHttpApp({
      logger: createLogger("document-openapi-test", "silent"),
      metrics: new Metrics("document-openapi-test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes,
      api,
    });
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    expect(mounted).to.have.lengthOf(38);
    expect(mounted).to.have.members(describedRoutes(api));
    expect(operationsOf(paths).map(({ route }) => route)).to.have.members(describedRoutes(api));
  });

  it("serves every listed operation: without a token each answers 401, none is an unknown route", async () => {
    for (const { route, path, method } of operationsOf(paths)) {
      const url = h.baseUrl + path.replace(/\{[a-z_]+\}/g, randomUUID());
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
      expect(operation.tags, route).to.be.an("array").and.not.be.empty;
      for (const name of path.match(/\{[a-z_]+\}/g) ?? []) {
        const parameter = operation.parameters?.find((candidate) => candidate.in === "path" && `{${candidate.name}}` === name);
        expect(parameter?.description, `${route} ${name}`).to.be.a("string").and.not.be.empty;
      }
      const success = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
      // Saving a link answers 201 for a new one and 200 for a change (API.md).
      if (route === "POST /api/v2/queues/{queue_id}/external-validation-links") expect(success, route).to.have.members(["200", "201"]);
      else expect(success, route).to.have.lengthOf(1);
      const content = operation.responses[success[0]!]!.content;
      if (route.endsWith("/file")) expect(Object.values(content ?? {})[0]?.schema, route).to.be.an("object");
      else if (success[0] === "204") expect(content, route).to.equal(undefined);
      else expect(content?.["application/json"]?.schema, route).to.be.an("object");
      if (success[0] === "201") expect(operation.responses["201"]!.headers, route).to.have.property("Location");
      expect(operation.responses, route).to.include.keys("401", "503");
      if (path.includes("{")) expect(operation.responses, route).to.include.keys("400", "404");
      if (METHODS_WITH_BODY.has(method) && !BODILESS.has(route)) {
        expect(operation.requestBody?.required, route).to.equal(true);
        expect(operation.requestBody?.content["application/json"]?.schema.type, route).to.equal("object");
        expect(operation.responses, route).to.include.keys("400", "413", "415");
      } else {
        expect(operation.requestBody, route).to.equal(undefined);
      }
    }
    const filters = ["status", "q", "created_from", "created_to", "updated_since", "assigned_to_me", "sort", "page", "page_size"];
    expect(paths["/api/v2/queues/{queue_id}/documents"]!.get!.parameters!.map((parameter) => parameter.name)).to.have.members([
      "queue_id",
      ...filters,
    ]);
    expect(paths["/api/v2/documents"]!.get!.parameters!.map((parameter) => parameter.name)).to.have.members([
      "queue_id",
      "workspace_id",
      ...filters,
    ]);
    expect(paths["/api/v2/queues/{queue_id}"]!.get!.parameters![0]!.description).to.include("UUID or humanized id");
    const upload = paths["/api/v2/queues/{queue_id}/documents"]!.post!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, { contentEncoding?: string; description?: string }>;
    };
    expect(upload.properties.content?.description).to.include("base64");
    const createQueue = paths["/api/v2/queues"]!.post!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, { enum?: string[] }>;
    };
    expect(createQueue.properties.duplicate_file_rejection?.enum).to.have.members(["enabled", "disabled"]);
  });

  it("answers real requests with bodies that fit the schemas it publishes", async () => {
    const organization = h.organization("openapi");
    const owner = organization.owner;
    const workspaceAnswer = dataOf(workspaceSchema);
    const queueAnswer = dataOf(queueWithAnnotationSchemaSchema);
    const documentAnswer = dataOf(documentSchema);

    const workspace = await owner.post("/workspaces", { organization_id: organization.id, name: "OpenAPI payables" });
    expectAnswer(workspace, "POST /api/v2/workspaces", 201, workspaceAnswer);
    expectAnswer(
      await owner.get(`/workspaces/${workspace.body.data.humanized_id}`),
      "GET /api/v2/workspaces/{workspace_id}",
      200,
      workspaceAnswer,
    );

    const queue = await owner.post("/queues", {
      workspace_id: workspace.body.data.id,
      name: "OpenAPI invoices",
      duplicate_file_rejection: "enabled",
    });
    expectAnswer(queue, "POST /api/v2/queues", 201, queueAnswer);
    const queueId = queue.body.data.id as string;
    expect(queue.body.data.annotation_schema.some((field: { columns?: unknown[] }) => field.columns?.length)).to.equal(true);
    expectAnswer(await owner.get(`/queues/${queueId}`), "GET /api/v2/queues/{queue_id}", 200, queueAnswer);
    expectAnswer(
      await owner.get(`/queues/${queueId}/external-validation-links`),
      "GET /api/v2/queues/{queue_id}/external-validation-links",
      200,
      dataOf(z.array(validationLinkSchema)),
    );

    const content = Buffer.from("%PDF-1.4 openapi").toString("base64");
    const uploaded = await owner.post(`/queues/${queueId}/documents`, { file_name: "invoice.pdf", content, confidence: null });
    expectAnswer(uploaded, "POST /api/v2/queues/{queue_id}/documents", 201, documentAnswer);
    const id = uploaded.body.data.id as string;
    const twice = await owner.post(`/queues/${queueId}/documents`, { file_name: "again.pdf", content });
    expect(twice.status).to.equal(409);
    expect(twice.headers.get("content-type")).to.include("application/problem+json");
    expect(paths["/api/v2/queues/{queue_id}/documents"]!.post!.responses).to.include.keys("409");

    const extracted = await owner.post(`/documents/${id}/extraction`, {
      annotations: [
        { key: "invoice_id", value: "INV-7", confidence: 97 },
        { key: "due_date", value: "2024-05-31", confidence: 88 },
        { key: "total_due", value: "1 234,50" },
        { key: "bank_account", value: "123/0100", values: [{ value: "456/0300" }] },
        { key: "line_items", value: "", rows: [{ activity: { value: "Hosting" }, total_incl_tax: { value: "1,234.50" } }] },
      ],
      confidence: 91,
    });
    expectAnswer(extracted, "POST /api/v2/documents/{document_id}/extraction", 200, documentAnswer);
    expect(extracted.body.data.annotations.find((annotation: { key: string }) => annotation.key === "due_date")).to.include({
      isoDateValue: "2024-05-31",
    });

    const applied = await h.grpc.applyDocumentChanges(
      change(id, {
        source: "automation",
        options_json: JSON.stringify({ supplier_name: [{ label: "ACME s.r.o.", value: "acme" }] }),
        messages_json: JSON.stringify([
          { key: null, message: "Checked by automation", severity: "info" },
          { key: "total_due", message: "Check the total", severity: "warning" },
        ]),
        approvers: [randomUUID()],
      }),
    );
    expect(applied.applied).to.equal(true);
    const read = await owner.get(`/documents/${id}`);
    expectAnswer(read, "GET /api/v2/documents/{document_id}", 200, documentAnswer);
    expect(read.body.data.messages).to.have.lengthOf(2);
    expect(read.body.data.options).to.have.property("supplier_name");

    const edited = await owner.patch(`/documents/${id}/annotations`, { annotations: [{ key: "contract", value: "C-1" }] });
    expectAnswer(edited, "PATCH /api/v2/documents/{document_id}/annotations", 200, documentAnswer);
    const moved = await owner.post(`/documents/${id}/status`, { status: "postponed" });
    expectAnswer(moved, "POST /api/v2/documents/{document_id}/status", 200, documentAnswer);
    const listed = await owner.get(`/queues/${queueId}/documents?status=postponed,received&page_size=5`);
    expectAnswer(listed, "GET /api/v2/queues/{queue_id}/documents", 200, pageOf(documentSchema));
    expect(listed.body.data.map((document: { id: string }) => document.id)).to.deep.equal([id]);
  });
});
