import type { Server } from "node:http";
import { connect } from "node:net";
import { brotliCompressSync, constants as zlib } from "node:zlib";
import { expect } from "chai";
import { z } from "zod";
import { type AccessTokenVerifier, authenticate } from "../src/auth/token-verifier.js";
import { databaseErrorOf } from "../src/db/errors.js";
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from "../src/errors.js";
import { createHttpApp } from "../src/http/app.js";
import { Readiness } from "../src/http/readiness.js";
import { Metrics } from "../src/metrics.js";
import { closeHttp, listen } from "../src/runtime.js";
import { parseInput } from "../src/validation.js";
import { baseUrlOf, silentLogger } from "./support.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
type Json = any;

/** Accepts the token "good.token.sig" and counts its verifications. */
const verifications = { count: 0 };
const countingVerifier: AccessTokenVerifier = {
  async verify(token) {
    verifications.count += 1;
    if (token !== "good.token.sig") throw new UnauthorizedError("The access token is invalid.", "invalid_token");
    return { userId: "user-1", email: "", amr: [], tokenId: "", expiresAt: Math.floor(Date.now() / 1000) + 60, token };
  },
};

/** Sends a request head (and `body`, if any) over a raw socket; resolves with what came back before the server closed or `waitMs` passed. */
function rawRequest(url: string, head: string, body?: Buffer, waitMs = 3_000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      if (body) socket.write(body);
    });
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

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
      bodyLimits: [
        { method: "POST", path: /^\/big$/, limit: "3mb", public: true },
        { method: "POST", path: /^\/signed-big$/, limit: "60mb", verifier: countingVerifier },
      ],
      routes: (router) => {
        const body = z.object({ name: z.string().min(1), count: z.number().int().min(0) }).strict();
        router.post("/items", (req, res) => {
          res.status(201).json({ data: parseInput(body, req.body) });
        });
        router.post("/signed-big", authenticate(countingVerifier), (req, res) => {
          res.json({ size: JSON.stringify(req.body).length, user: req.caller?.userId });
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

  /** ~50 MB of JSON brotli-compressed to a few dozen bytes: what a body parser that inflates would swallow. */
  const brotliBomb = () =>
    brotliCompressSync(Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(50 * 1024 * 1024, 0x61), Buffer.from('"}')]), {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_LGWIN]: 24 },
    });
  const head = (path: string, headers: Record<string, string | number>) =>
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;

  it("refuses a compressed body with 415 before reading a byte of it, on every route", async () => {
    const bomb = brotliBomb();
    expect(bomb.length).to.be.below(200);
    // Only the head is sent: the answer comes without the body, so nothing of it was read, let alone inflated.
    for (const path of ["/items", "/big", "/signed-big"]) {
      const { text } = await rawRequest(
        base,
        head(path, { "content-encoding": "br", "content-length": bomb.length, authorization: "Bearer good.token.sig" }),
      );
      expect(text, path).to.match(/^HTTP\/1\.1 415 /);
      expect(text).to.match(/connection: close/i);
      expect(text).to.include('"code":"unsupported_content_encoding"');
    }
    for (const encoding of ["gzip", "deflate", "br", "identity, gzip"]) {
      const response = await post("/items", '{"name":"x","count":1}', { "content-type": "application/json", "content-encoding": encoding });
      expect(response.status, encoding).to.equal(415);
    }
    const identity = await post("/items", '{"name":"x","count":1}', { "content-type": "application/json", "content-encoding": "identity" });
    expect(identity.status).to.equal(201);
  });

  it("checks the token of a large-body route before reading the body: 401 and the body unread", async () => {
    const before = verifications.count;
    const unauthenticated = await rawRequest(base, head("/signed-big", { "content-length": 50 * 1024 * 1024 }));
    expect(unauthenticated.text).to.match(/^HTTP\/1\.1 401 /);
    expect(unauthenticated.text).to.include('"code":"missing_token"');
    expect(unauthenticated.closed, "the connection is closed rather than the body read").to.equal(true);
    const badToken = await rawRequest(
      base,
      head("/signed-big", { "content-length": 50 * 1024 * 1024, authorization: "Bearer bad.token.sig" }),
    );
    expect(badToken.text).to.match(/^HTTP\/1\.1 401 /);
    expect(verifications.count - before).to.equal(1);

    // With a good token the body is read and the route's own authenticate does not verify again.
    const accepted = await post("/signed-big", JSON.stringify({ items: "x".repeat(2 * 1024 * 1024) }), {
      "content-type": "application/json",
      authorization: "Bearer good.token.sig",
    });
    expect(accepted.status).to.equal(200);
    expect(((await accepted.json()) as Json).user).to.equal("user-1");
    expect(verifications.count - before).to.equal(2);
  });

  it("refuses to build an app whose large-body rule neither checks tokens nor says it is public", () => {
    expect(() =>
      createHttpApp({
        logger: silentLogger,
        metrics: new Metrics("kit-test-rule", { defaultMetrics: false }),
        readiness: new Readiness(),
        bodyLimits: [{ method: "POST", path: /^\/x$/, limit: "50mb" }],
        routes: () => undefined,
      }),
    ).to.throw(/needs a verifier/);
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

/** Answers from an app whose routes throw what a store would have thrown; each path answers once. */
async function answersOf(routes: Parameters<typeof createHttpApp>[0]["routes"], paths: string[], method = "GET") {
  const app = createHttpApp({
    logger: silentLogger,
    metrics: new Metrics("kit-test", { defaultMetrics: false }),
    readiness: new Readiness(),
    routes,
  });
  const server = await listen(app, "127.0.0.1", 0);
  try {
    const answers: Array<{ path: string; status: number; retryAfter: string | null; body: Json }> = [];
    for (const path of paths) {
      const response = await fetch(`${baseUrlOf(server)}${path}`, { method });
      answers.push({
        path,
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        body: (await response.json()) as Json,
      });
    }
    return answers;
  } finally {
    await closeHttp(server, 500);
  }
}

/** The kit's error around the driver's `driver`, as a store's query throws it. */
function sqlErrorOf(driver: Error): Error {
  return databaseErrorOf(driver, "SELECT 1");
}

describe("problem answers for a transaction aborted by a concurrent one", () => {
  it("turns a deadlock or a serialization failure into 503 concurrent_change with Retry-After, never a 500", async () => {
    const paths = { "/deadlock": "40P01", "/serialization": "40001" };
    const answers = await answersOf(
      (router) => {
        for (const [path, code] of Object.entries(paths))
          router.post(path, () => {
            throw sqlErrorOf(Object.assign(new Error("deadlock detected"), { code }));
          });
      },
      Object.keys(paths),
      "POST",
    );
    for (const { path, status, retryAfter, body } of answers) {
      expect(status, path).to.equal(503);
      expect(retryAfter).to.equal("1");
      expect(body.code).to.equal("concurrent_change");
      expect(String(body.detail)).to.include("nothing was changed");
    }
  });
});

describe("problem answers for a lost database connection", () => {
  it("turns a dropped Postgres connection, or a prepared statement a migration made stale, into 503 database_unavailable with Retry-After, never a 500", async () => {
    const answers = await answersOf(
      (router) => {
        router.get("/cut", () => {
          throw sqlErrorOf(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }));
        });
        // What a query meets on a pooled connection that broke a moment before (no SQL state, only words).
        router.get("/broken", () => {
          throw sqlErrorOf(new Error("Client has encountered a connection error and is not queryable"));
        });
        // A kit `Prepared` statement whose result columns a migration changed: Sql drops the connection, a retry succeeds.
        router.get("/stale", () => {
          throw sqlErrorOf(Object.assign(new Error("cached plan must not change result type"), { code: "0A000" }));
        });
      },
      ["/cut", "/broken", "/stale"],
    );
    for (const { path, status, retryAfter, body } of answers) {
      expect(status, path).to.equal(503);
      expect(retryAfter).to.equal("1");
      expect(body.code).to.equal("database_unavailable");
    }
  });
});
