import type { Server } from "node:http";
import { expect } from "chai";
import express from "express";
import { z } from "zod";
import { createHttpApp } from "../src/http/app.js";
import { ApiDescription, dataOf, describedRoutes, mountedRoutes } from "../src/http/operations.js";
import { Readiness } from "../src/http/readiness.js";
import { Metrics } from "../src/metrics.js";
import { closeHttp, listen } from "../src/runtime.js";
import { baseUrlOf, silentLogger } from "./support.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
type Json = any;

describe("ApiDescription: one source for routes, input parsing and OpenAPI", () => {
  const api = new ApiDescription("test");
  const itemBody = z.object({ name: z.string().min(1).describe("What the item is called") }).strict();
  const listQuery = z.object({ page: z.coerce.number().int().min(1).default(1) }).strict();
  let server: Server;
  let base: string;
  const app = createHttpApp({
    logger: silentLogger,
    metrics: new Metrics("kit-test", { defaultMetrics: false }),
    readiness: new Readiness(),
    api,
    routes: (router) => {
      api.route(
        router,
        {
          method: "post",
          path: "/api/v2/shelves/{shelf_id}/items",
          operationId: "createItem",
          summary: "Put an item on a shelf",
          tags: ["Items"],
          params: { shelf_id: "The shelf" },
          body: itemBody,
          responses: { 201: { description: "Created", schema: dataOf(z.object({ shelf: z.string(), name: z.string() })) } },
          problems: [404],
        },
        ({ body, params }, _req, res) => {
          res.status(201).json({ data: { shelf: params.shelf_id, name: body.name } });
        },
      );
      api.route(
        router,
        {
          method: "get",
          path: "/api/v2/items",
          operationId: "listItems",
          summary: "List items",
          tags: ["Items"],
          public: true,
          query: listQuery,
          responses: { 200: { description: "A page", schema: dataOf(z.array(z.string())) } },
        },
        ({ query }, _req, res) => {
          res.json({ data: [`page ${query.page}`] });
        },
      );
    },
  });

  before(async () => {
    server = await listen(app, "127.0.0.1", 0);
    base = baseUrlOf(server);
  });
  after(() => closeHttp(server, 1_000));

  it("parses the body and path with the operation's schemas before the handler runs", async () => {
    const ok = await fetch(`${base}/api/v2/shelves/s1/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "jar" }),
    });
    expect(ok.status).to.equal(201);
    expect((await ok.json()) as Json).to.deep.equal({ data: { shelf: "s1", name: "jar" } });
    const bad = await fetch(`${base}/api/v2/shelves/s1/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "", colour: "red" }),
    });
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as Json).errors.map((error: { path: string }) => error.path)).to.have.members(["name", ""]);
    const query = await fetch(`${base}/api/v2/items?page=3`);
    expect((await query.json()) as Json).to.deep.equal({ data: ["page 3"] });
    expect((await fetch(`${base}/api/v2/items?page=0`)).status).to.equal(400);
  });

  it("answers a query parameter the operation does not declare with a 400 naming it, beside the bad values", async () => {
    const unknown = await fetch(`${base}/api/v2/items?page=2&q=acme`);
    expect(unknown.status).to.equal(400);
    expect(unknown.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const problem = (await unknown.json()) as Json;
    expect(problem.detail).to.equal("Unknown query parameter: q.");
    expect(problem.errors).to.deep.equal([{ path: "q", message: "is not a parameter of this operation (it takes page)" }]);
    const both = (await (await fetch(`${base}/api/v2/items?page=0&sort=name`)).json()) as Json;
    expect(both.errors.map((error: { path: string }) => error.path)).to.deep.equal(["sort", "page"]);
  });

  it("publishes paths with parameters, request and response schemas and problem answers at /openapi.json", async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as Json;
    const create = document.paths["/api/v2/shelves/{shelf_id}/items"].post;
    expect(create.operationId).to.equal("createItem");
    expect(create.parameters).to.deep.include({
      name: "shelf_id",
      in: "path",
      required: true,
      schema: { type: "string" },
      description: "The shelf",
    });
    expect(create.requestBody.content["application/json"].schema.properties.name).to.include({ type: "string", minLength: 1 });
    expect(create.responses["201"].content["application/json"].schema.properties.data.required).to.deep.equal(["shelf", "name"]);
    expect(Object.keys(create.responses)).to.include.members(["201", "400", "401", "404", "413", "415"]);
    const list = document.paths["/api/v2/items"].get;
    expect(list.security).to.deep.equal([]);
    expect(list.parameters[0]).to.include({ name: "page", in: "query", required: false });
  });

  it("lists what is mounted, so a route outside the description is caught", () => {
    expect(mountedRoutes(app).filter((route) => route.includes("/api/v2/"))).to.have.members(describedRoutes(api));
    const router = express.Router();
    router.get("/api/v2/undocumented/:id", () => undefined);
    expect(mountedRoutes({ stack: (router as unknown as { stack: unknown[] }).stack })).to.deep.equal(["GET /api/v2/undocumented/{id}"]);
  });
});
