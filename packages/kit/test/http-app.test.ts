import type { Server } from "node:http";
import { expect } from "chai";
import { z } from "zod";
import { ConflictError, ForbiddenError, NotFoundError } from "../src/errors.js";
import { createHttpApp } from "../src/http/app.js";
import { Readiness } from "../src/http/readiness.js";
import { Metrics } from "../src/metrics.js";
import { closeHttp, listen } from "../src/runtime.js";
import { parseInput } from "../src/validation.js";
import { baseUrlOf, silentLogger } from "./support.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
type Json = any;

describe("createHttpApp", () => {
  let server: Server;
  let base: string;
  let dependencyUp = true;

  before(async () => {
    const readiness = new Readiness();
    readiness.add("dependency", async () => {
      if (!dependencyUp) throw new Error("dependency down");
    });
    const app = createHttpApp({
      logger: silentLogger,
      metrics: new Metrics("kit-test", { defaultMetrics: false }),
      readiness,
      bodyLimits: [{ method: "POST", path: /^\/big$/, limit: "3mb" }],
      routes: (router) => {
        const body = z.object({ name: z.string().min(1), count: z.number().int().min(0) }).strict();
        router.post("/items", (req, res) => {
          res.status(201).json({ data: parseInput(body, req.body) });
        });
        router.post("/big", (req, res) => {
          res.json({ size: JSON.stringify(req.body).length });
        });
        router.get("/items/:id", (req) => {
          if (req.params.id === "forbidden") throw new ForbiddenError();
          if (req.params.id === "conflict") throw new ConflictError("Already exists.", "duplicate", [], { blocking: ["x"] });
          throw new NotFoundError("No such item.");
        });
        router.get("/boom", () => {
          throw new Error("database password is hunter2");
        });
      },
    });
    server = await listen(app, "127.0.0.1", 0);
    base = baseUrlOf(server);
  });

  after(() => closeHttp(server, 1_000));

  const post = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
    fetch(`${base}${path}`, { method: "POST", body, headers });

  it("answers malformed JSON with a 400 problem+json carrying the request id", async () => {
    const response = await post("/items", "{not json", { "content-type": "application/json", "x-request-id": "req-123" });
    expect(response.status).to.equal(400);
    expect(response.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(response.headers.get("x-request-id")).to.equal("req-123");
    const problem = (await response.json()) as Json;
    expect(problem).to.include({ status: 400, code: "malformed_json", type: "/problems/malformed_json", request_id: "req-123" });
  });

  it("lists every bad field in errors[] when a body fails its schema", async () => {
    const response = await post("/items", JSON.stringify({ name: "", count: -1, extra: true }));
    expect(response.status).to.equal(400);
    const problem = (await response.json()) as Json;
    expect(problem.code).to.equal("validation_failed");
    const paths = problem.errors.map((error: { path: string }) => error.path);
    expect(paths).to.include.members(["name", "count"]);
    expect(problem.errors).to.have.length(3);
  });

  it("answers a body over the limit with 413, and lets a larger limit apply where configured", async () => {
    const big = JSON.stringify({ name: "x".repeat(1_100_000), count: 1 });
    expect((await post("/items", big)).status).to.equal(413);
    const allowed = await post("/big", big);
    expect(allowed.status).to.equal(200);
  });

  it("answers a body that is not JSON with 415", async () => {
    const response = await post("/items", "name=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(response.status).to.equal(415);
    expect(((await response.json()) as Json).code).to.equal("unsupported_media_type");
  });

  it("translates domain errors to their statuses and keeps problem extensions", async () => {
    expect((await fetch(`${base}/items/forbidden`)).status).to.equal(403);
    const notFound = await fetch(`${base}/items/nothing`);
    expect(notFound.status).to.equal(404);
    expect(((await notFound.json()) as Json).detail).to.equal("No such item.");
    const conflict = (await (await fetch(`${base}/items/conflict`)).json()) as Json;
    expect(conflict).to.deep.include({ status: 409, code: "duplicate", blocking: ["x"] });
  });

  it("answers an unknown path with 404 problem+json", async () => {
    const response = await fetch(`${base}/nowhere`);
    expect(response.status).to.equal(404);
    expect(((await response.json()) as Json).code).to.equal("route_not_found");
  });

  it("answers an unexpected failure with a 500 that leaks nothing", async () => {
    const response = await fetch(`${base}/boom`);
    expect(response.status).to.equal(500);
    const text = await response.text();
    expect(text).not.to.include("hunter2");
    expect(text).not.to.include("at ");
    expect(JSON.parse(text).code).to.equal("internal_error");
  });

  it("generates a request id when none or a bad one is given", async () => {
    const response = await fetch(`${base}/healthz`, { headers: { "x-request-id": "bad id with spaces" } });
    expect(response.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
  });

  it("reports readiness from its registered checks", async () => {
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    dependencyUp = false;
    const down = await fetch(`${base}/readyz`);
    expect(down.status).to.equal(503);
    expect(((await down.json()) as Json).checks.dependency).to.equal("dependency down");
    dependencyUp = true;
  });

  it("records request durations by route template", async () => {
    await fetch(`${base}/items/abc`);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).to.match(/http_request_duration_seconds_count\{[^}]*route="\/items\/:id"[^}]*status_code="404"/);
  });
});

describe("problem answers for a lost database connection", () => {
  it("turns a dropped Postgres connection into 503 database_unavailable with Retry-After, never a 500", async () => {
    const app = createHttpApp({
      logger: silentLogger,
      metrics: new Metrics("kit-test", { defaultMetrics: false }),
      readiness: new Readiness(),
      routes: (router) => {
        router.get("/cut", () => {
          const lost = Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
          throw Object.assign(new Error("query failed"), { name: "SequelizeDatabaseError", parent: lost });
        });
      },
    });
    const server = await listen(app, "127.0.0.1", 0);
    try {
      const response = await fetch(`${baseUrlOf(server)}/cut`);
      expect(response.status).to.equal(503);
      expect(response.headers.get("retry-after")).to.equal("1");
      expect(((await response.json()) as Json).code).to.equal("database_unavailable");
    } finally {
      await closeHttp(server, 500);
    }
  });
});
