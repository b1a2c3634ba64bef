import { randomUUID } from "node:crypto";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import fc from "fast-check";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
};

interface OpenApiOperation {
  operationId: string;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

interface Operation {
  method: string;
  path: string;
  operationId: string;
  body: JsonSchema;
}

/** A value that cannot be of `schema`'s type: the one sure-to-be-wrong field of each generated body. */
function wrongFor(schema: JsonSchema | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type;
  switch (type) {
    case "string":
      return { not: "a string" };
    case "number":
    case "integer":
      return "not a number";
    case "boolean":
      return "yes";
    case "array":
      return "not an array";
    case "object":
      return 7;
    default:
      return Symbol.for("remove");
  }
}

const weird = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constant("x".repeat(200_000)),
  fc.constant("nul\u0000byte"),
  fc.constant("\ud83d\ude00\u202e\u0301"),
  fc.integer(),
  fc.constantFrom(1e300, -1e300, Number.MAX_SAFE_INTEGER + 2, -1, 0, 0.5),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.constant(JSON.parse(`${"[".repeat(500)}${"]".repeat(500)}`)),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Bodies derived from the operation's schema and then broken so that none is acceptable. */
function brokenBodies(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.type === "array") {
    const element = schema.items ?? {};
    return fc.oneof(
      fc.constant(schema.items ? [] : "not an array"),
      fc.array(brokenBodies(element), { minLength: 1, maxLength: 3 }),
      fc.constantFrom("not an array", 42, null, {}),
    );
  }
  const properties = Object.keys(schema.properties ?? {});
  const required = schema.required ?? [];
  if (properties.length === 0) return fc.constantFrom("not an object", 42, null, []);
  return fc
    .record({
      values: fc.dictionary(fc.constantFrom(...properties), weird, { maxKeys: properties.length }),
      broken: fc.constantFrom(...properties),
      extra: fc.option(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).map((key) => `x_${key}`),
          weird,
          { maxKeys: 2 },
        ),
        { nil: undefined },
      ),
      removeRequired: fc.option(required.length ? fc.constantFrom(...required) : fc.constant(undefined), { nil: undefined }),
    })
    .map(({ values, broken, extra, removeRequired }) => {
      const body: Record<string, unknown> = { ...values, ...extra };
      const wrong = wrongFor(schema.properties?.[broken]);
      if (wrong === Symbol.for("remove") && required.length) delete body[required[0]!];
      else body[broken] = wrong === Symbol.for("remove") ? { broken: true } : wrong;
      if (removeRequired) delete body[removeRequired];
      return body;
    });
}

describe("bad input across every POST, PUT and PATCH of the API, through the gateway", function () {
  this.timeout(600_000);
  let stack: Stack;
  let token = "";
  const ids: Record<string, string> = {};
  let requests = 0;

  const snapshot = async () => {
    const read = async (path: string) => {
      const answer = await stack.call("GET", path, { token });
      return { status: answer.status, body: answer.body };
    };
    return {
      organizations: await read("/organizations"),
      organization: await read(`/organizations/${ids.organization_id}`),
      members: await read(`/organizations/${ids.organization_id}/raw-memberships`),
      workspace: await read(`/workspaces/${ids.workspace_id}`),
      queue: await read(`/queues/${ids.queue_id}`),
      documents: await read(`/queues/${ids.queue_id}/documents?page_size=100`),
      document: await read(`/documents/${ids.document_id}`),
      webhooks: await read(`/queues/${ids.queue_id}/webhooks`),
      webhook: await read(`/webhooks/${ids.webhook_id}`),
      rules: await read(`/queues/${ids.queue_id}/accounting-automation-rules`),
      links: await read(`/queues/${ids.queue_id}/external-validation-links`),
    };
  };

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    const organization = await eventually(async () => {
      const answer = await stack.call("GET", "/organizations", { token });
      return answer.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap");
    }, 20_000);
    ids.organization_id = organization.id;
    const created = async (method: string, path: string, body: unknown): Promise<Answer> => {
      const answer = await stack.call(method, path, { token, body });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer;
    };
    ids.workspace_id = (await created("POST", "/workspaces", { organization_id: ids.organization_id, name: "Sweep" })).body.data.id;
    ids.queue_id = (await created("POST", "/queues", { workspace_id: ids.workspace_id, name: "Sweep queue" })).body.data.id;
    ids.document_id = (await created("POST", `/queues/${ids.queue_id}/documents`, { file_name: "sweep.pdf" })).body.data.id;
    await created("POST", `/documents/${ids.document_id}/extraction`, {
      annotations: [{ key: "invoice_id", value: "S-1" }],
      confidence: 80,
    });
    ids.webhook_id = (
      await created("POST", "/webhooks", { url: "http://127.0.0.1:9/hook", entity_type: "queue", entity_id: ids.queue_id })
    ).body.data.id;
    ids.automation_rule_id = randomUUID();
    ids.register_id = randomUUID();
    ids.delivery_id = randomUUID();
    ids.export_id = randomUUID();
    ids.run_id = randomUUID();
    ids.batch_id = randomUUID();
    ids.type = "document_validation";
    ids.page = "1";
  });

  it("answers every broken body, malformed JSON and wrong content type with a 4xx problem+json, and changes nothing", async () => {
    const document = (await stack.call("GET", "/openapi.json")).body;
    const operations: Operation[] = [];
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, OpenApiOperation>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const schema = operation.requestBody?.content?.["application/json"]?.schema;
        if (["post", "put", "patch"].includes(method) && schema)
          operations.push({ method, path, operationId: operation.operationId, body: schema });
      }
    }
    expect(operations.length, "operations with a JSON body in the OpenAPI document").to.be.greaterThan(25);

    const before = await snapshot();
    const failures: string[] = [];
    const send = async (operation: Operation, options: { body?: unknown; raw?: string; contentType?: string }) => {
      const path = operation.path.replace("/api/v2", "").replace(/\{([a-z_]+)\}/g, (_match, name: string) => ids[name] ?? randomUUID());
      requests += 1;
      const answer = await stack.call(operation.method.toUpperCase(), path, { token, ...options });
      const problem = answer.headers.get("content-type")?.startsWith("application/problem+json");
      if (answer.status < 400 || answer.status >= 500 || !problem || typeof answer.body?.request_id !== "string") {
        failures.push(`${operation.method.toUpperCase()} ${operation.path} ${JSON.stringify(options).slice(0, 160)} → ${answer.status}`);
      }
    };

    for (const operation of operations) {
      const bodies = fc.sample(brokenBodies(operation.body), { numRuns: 30, seed: 7 });
      for (const body of bodies) await send(operation, { body });
      await send(operation, { raw: '{"unterminated": ' });
      await send(operation, { raw: "name=x", contentType: "text/plain" });
      await send(operation, { raw: "[".repeat(100_000) });
      await send(operation, { raw: '{"a":"\\u0000"}' });
    }
    console.log(`      input sweep: ${requests} requests to ${operations.length} operations`);
    expect(failures, failures.slice(0, 20).join("\n")).to.deep.equal([]);
    expect(await snapshot()).to.deep.equal(before);
  });

  it("answers an unknown query parameter on every list, and a bad value of each typed one, with a 400 problem+json naming it", async () => {
    const document = (await stack.call("GET", "/openapi.json")).body;
    const failures: string[] = [];
    let lists = 0;
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, OpenApiOperation>>)) {
      const operation = methods.get;
      if (operation?.responses?.["200"]?.content?.["application/json"]?.schema?.properties?.data?.type !== "array") continue;
      lists += 1;
      const base = path.replace("/api/v2", "").replace(/\{([a-z_]+)\}/g, (_match, name: string) => ids[name] ?? randomUUID());
      const queries: Array<[query: string, name: string]> = [["x_unknown=1", "x_unknown"]];
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== "query") continue;
        const type = Array.isArray(parameter.schema?.type) ? parameter.schema?.type[0] : parameter.schema?.type;
        if (type === "integer" || type === "number") queries.push([`${parameter.name}=not-a-number`, parameter.name]);
        else if (parameter.schema?.enum) queries.push([`${parameter.name}=not-one-of-them`, parameter.name]);
      }
      for (const [query, name] of queries) {
        const answer = await stack.call("GET", `${base}?${query}`, { token });
        const problem = answer.headers.get("content-type")?.startsWith("application/problem+json");
        const named = (answer.body?.errors ?? []).some((error: { path: string }) => error.path === name);
        if (answer.status !== 400 || !problem || !named)
          failures.push(`GET ${path}?${query} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`);
      }
    }
    expect(lists, "lists in the OpenAPI document").to.be.greaterThan(12);
    expect(failures, failures.join("\n")).to.deep.equal([]);
  });
});
