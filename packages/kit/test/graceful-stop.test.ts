import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect as connectNats } from "@nats-io/transport-node";
import { expect } from "chai";
import express from "express";
import pg from "pg";
import { serviceConfigSchema } from "../src/config.js";
import { DatabaseUnavailableError } from "../src/db/errors.js";
import { CLOSE_TIMEOUT_MS, closeHttp, connectInfrastructure, type Infrastructure, listen } from "../src/runtime.js";
import { dropDatabase, natsUrl, serverUrl, silentLogger, uniqueName } from "./support.js";

/** A raw keep-alive HTTP/1.1 connection: what it received, and when it was closed. */
function keepAliveConnection(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  const state = { received: "", closedAt: 0 };
  socket.on("data", (chunk: Buffer) => {
    state.received += chunk.toString();
  });
  socket.on("close", () => {
    state.closedAt = Date.now();
  });
  const request = (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
  return { socket, state, request };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("closeHttp at SIGTERM (issue 20, item 4)", () => {
  it("closes idle keep-alive connections at once, lets in-flight requests finish, then closes their connections", async () => {
    const app = express();
    app.get("/fast", (_req, res) => {
      res.json({ ok: true });
    });
    app.get("/slow", (_req, res) => {
      setTimeout(() => res.json({ ok: true }), 600);
    });
    // Its head is sent before the drain starts, so only closing the connection after it can say "no more here".
    app.get("/stream", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("part one;");
      setTimeout(() => res.end("part two"), 600);
    });
    const server = await listen(app, "127.0.0.1", 0);
    const port = (server.address() as AddressInfo).port;
    const idle = keepAliveConnection(port);
    const busy = keepAliveConnection(port);
    const streaming = keepAliveConnection(port);
    try {
      await Promise.all([once(idle.socket, "connect"), once(busy.socket, "connect"), once(streaming.socket, "connect")]);
      idle.request("/fast");
      await until(() => idle.state.received.includes("\r\n\r\n{"), 2_000);
      busy.request("/slow");
      streaming.request("/stream");
      await until(() => streaming.state.received.includes("part one"), 2_000);

      const stoppingAt = Date.now();
      const closing = closeHttp(server, 10_000);
      await until(() => idle.state.closedAt > 0, 1_000);
      expect(idle.state.closedAt - stoppingAt, "the idle connection is closed at once").to.be.below(300);
      expect(busy.state.closedAt, "the busy connection stays open for its request").to.equal(0);

      await closing;
      const stoppedIn = Date.now() - stoppingAt;
      expect(stoppedIn, "the drain ends with its last request, not after the keep-alive timeout").to.be.below(2_000);
      await until(() => busy.state.closedAt > 0, 1_000);
      expect(busy.state.received, "the in-flight request got its answer").to.match(/^HTTP\/1\.1 200 OK/);
      expect(busy.state.received).to.include('{"ok":true}');
      expect(busy.state.received.toLowerCase(), "and was told the connection closes").to.include("connection: close");
      await until(() => streaming.state.closedAt > 0, 1_000);
      expect(streaming.state.received, "the streamed answer was completed").to.include("part two");
    } finally {
      idle.socket.destroy();
      busy.socket.destroy();
      streaming.socket.destroy();
      server.closeAllConnections();
    }
  });
});

/**
 * The infrastructure of a service of its own (a fresh database and stream), for a test that stops it; `remove`
 * closes what a stop left open and deletes the database and streams.
 */
async function stoppableInfrastructure(name: string, shutdownMs: number, ports: { http?: number; grpc?: number } = {}) {
  const database = uniqueName(name);
  const stream = database.toUpperCase();
  const config = serviceConfigSchema("register").parse({
    DATABASE_URL: serverUrl,
    DATABASE_NAME: database,
    NATS_URL: natsUrl,
    NATS_STREAM: stream,
    NATS_SUBJECT_PREFIX: database,
    LOG_LEVEL: "silent",
    GRPC_INSECURE: "true",
    PORT: String(ports.http ?? 0),
    GRPC_PORT: String(ports.grpc ?? 0),
    SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
  });
  const infra = await connectInfrastructure("register", config, { migrations: [], logger: silentLogger });
  const remove = async () => {
    await infra.outbox.stop().catch(() => undefined);
    await infra.bus.close().catch(() => undefined);
    await infra.sql.close().catch(() => undefined);
    const connection = await connectNats({ servers: natsUrl });
    const jsm = await jetstreamManager(connection);
    for (const streamName of [stream, `${stream}_DLQ`]) await jsm.streams.delete(streamName).catch(() => undefined);
    await connection.close();
    await dropDatabase(database);
  };
  return { infra, remove };
}

describe("a service's stop (Infrastructure.serve) at SIGTERM (issue 20, item 4)", () => {
  const shutdownMs = 300;
  let infra: Infrastructure;
  let remove: () => Promise<void>;

  before(async () => {
    ({ infra, remove } = await stoppableInfrastructure("graceful_stop", shutdownMs));
  });

  // Also what the hung close left open.
  after(() => remove());

  it("stops background work (onDrain) at once, beside the HTTP drain, and ends within SHUTDOWN_TIMEOUT_MS + CLOSE_TIMEOUT_MS when closing hangs", async function () {
    this.timeout(20_000);
    const app = express();
    let answeredAt = 0;
    app.get("/slow", (_req, res) => {
      setTimeout(() => {
        answeredAt = Date.now();
        res.json({ ok: true });
      }, 200);
    });
    let drainStartedAt = 0;
    const running = await infra.serve({
      app,
      onDrain: async () => {
        drainStartedAt = Date.now();
      },
      // A client that never finishes closing.
      onStop: () => new Promise<void>(() => undefined),
    });
    const slow = fetch(`http://127.0.0.1:${running.httpPort}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stoppingAt = Date.now();
    await running.stop();
    const stoppedIn = Date.now() - stoppingAt;
    expect((await slow).status, "the request in flight was answered").to.equal(200);
    expect(drainStartedAt, "onDrain ran").to.be.above(0);
    expect(drainStartedAt, "onDrain started before the request in flight was answered").to.be.below(answeredAt);
    expect(stoppedIn, "the stop is bounded").to.be.below(shutdownMs + CLOSE_TIMEOUT_MS + 1_000);
  });
});

describe("a service's start that fails once it listens (Infrastructure.serve)", () => {
  it("closes the HTTP port it opened when its gRPC port is taken, so that nothing keeps listening without a service", async function () {
    this.timeout(20_000);
    const taken = await listen(express(), "127.0.0.1", 0);
    const free = await listen(express(), "127.0.0.1", 0);
    const httpPort = (free.address() as AddressInfo).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const { infra, remove } = await stoppableInfrastructure("failed_start", 300, {
      http: httpPort,
      grpc: (taken.address() as AddressInfo).port,
    });
    try {
      const failed = await infra.serve({ app: express(), grpc: infra.grpcServer() }).catch((error: unknown) => error);
      expect(failed).to.be.instanceOf(Error);
      expect(String((failed as Error).message)).to.match(/EADDRINUSE|No address added/);
      // Its HTTP port was closed again: a connection is refused, and the port can be listened on.
      const refused = await new Promise<string>((resolve) => {
        const socket = connect(httpPort, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
      expect(refused).to.equal("ECONNREFUSED");
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
      await remove();
    }
  });
});

describe("a service's event consumers at SIGTERM (issue 20, item 4)", () => {
  let infra: Infrastructure;
  let remove: () => Promise<void>;

  before(async () => {
    ({ infra, remove } = await stoppableInfrastructure("consumer_stop", 5_000));
  });

  after(() => remove());

  it("stop taking events at once, and finish the one in hand before the service's clients close", async function () {
    this.timeout(20_000);
    const subject = "docex.drain_test.happened";
    const handled: Array<{ n: number; endedAt: number }> = [];
    let begun: () => void = () => undefined;
    const firstBegun = new Promise<void>((resolve) => {
      begun = resolve;
    });
    let clientsClosedAt = 0;
    const running = await infra.serve({
      app: express(),
      subscriptions: [
        {
          durable: "drain_test",
          subject,
          handler: async (payload) => {
            begun();
            await new Promise((resolve) => setTimeout(resolve, 400));
            handled.push({ n: (payload as { n: number }).n, endedAt: Date.now() });
          },
        },
      ],
      onStop: async () => {
        clientsClosedAt = Date.now();
      },
    });
    await infra.bus.publish(subject, { n: 1 }, { msgId: randomUUID() });
    await firstBegun;
    const stopping = running.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Published while the service drains (its connection stays open until its clients are closed).
    await infra.bus.publish(subject, { n: 2 }, { msgId: randomUUID() });
    await stopping;
    expect(
      handled.map((event) => event.n),
      "the event in hand is finished, the one after SIGTERM is not taken",
    ).to.deep.equal([1]);
    expect(handled[0]!.endedAt, "the event in hand ended before the service's clients closed").to.be.at.most(clientsClosedAt);
  });
});

describe("a service's stop closes its database pool (issue 41, item 3)", () => {
  it("leaves no connection of the service open in Postgres, and its Sql takes no statement after", async function () {
    this.timeout(20_000);
    const { infra, remove } = await stoppableInfrastructure("pool_close", 1_000);
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      const connections = async () =>
        Number(
          (await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [infra.config.DATABASE_NAME]))
            .rows[0]?.n,
        );
      const running = await infra.serve({ app: express() });
      // The pool's warm connections (WARM_POOL_CONNECTIONS), open once the service has started.
      expect(await connections()).to.be.at.least(1);
      expect(infra.sql.closed).to.equal(false);
      await running.stop();
      expect(infra.sql.closed).to.equal(true);
      const deadline = Date.now() + 5_000;
      while ((await connections()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await connections(), "every connection of the pool closed").to.equal(0);
      const refused = await infra.sql.run("SELECT 1").catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(DatabaseUnavailableError);
    } finally {
      await admin.end();
      await remove();
    }
  });
});

describe("keep-alive connections of the kit's HTTP servers (issue 20, item 1)", () => {
  it("closes a connection after its first answer past the maximum age, so that a client's pool reconnects and a Service can pick another pod", async () => {
    const app = express();
    app.get("/fast", (_req, res) => {
      res.json({ ok: true });
    });
    const server = await listen(app, "127.0.0.1", 0, { maxConnectionAgeMs: 300 });
    const connection = keepAliveConnection((server.address() as AddressInfo).port);
    try {
      await once(connection.socket, "connect");
      connection.request("/fast");
      await until(() => connection.state.received.includes("\r\n\r\n{"), 2_000);
      expect(connection.state.received.toLowerCase()).to.include("connection: keep-alive");
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(connection.state.closedAt, "a connection is not closed while it is idle").to.equal(0);
      const before = connection.state.received.length;
      connection.request("/fast");
      await until(() => connection.state.closedAt > 0, 2_000);
      const second = connection.state.received.slice(before);
      expect(second).to.match(/^HTTP\/1\.1 200/);
      expect(second.toLowerCase(), second).to.include("connection: close");
      expect(second).to.include('{"ok":true}');
    } finally {
      connection.socket.destroy();
      await closeHttp(server, 1_000);
    }
  });
});
