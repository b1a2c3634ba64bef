import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ensureGrpcIdentityDirectory } from "@docex/private-ca";
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { GrpcClient, RENEW_CHANNEL_MS } from "../src/grpc/client.js";
import { GrpcIdentity } from "../src/grpc/identity.js";
import { ANY_SERVICE, GrpcServer, MAX_CONNECTION_AGE_MS } from "../src/grpc/server.js";
import { createLogger } from "../src/logger.js";

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (buffer: Buffer) => JSON.parse(buffer.toString()) as unknown,
};
const PingClient = grpc.makeGenericClientConstructor(
  {
    Ping: {
      path: "/docex.document.v1.Document/Ping",
      requestStream: false,
      responseStream: false,
      requestSerialize: json.serialize,
      requestDeserialize: json.deserialize,
      responseSerialize: json.serialize,
      responseDeserialize: json.deserialize,
    },
  },
  "docex.document.v1.Document",
);

/** A TCP relay in front of the server: the connections the client opens, and which of them are still open. */
async function connectionCounter(port: number) {
  const counted = { opened: 0, open: 0, server: undefined as unknown as net.Server, port: 0 };
  const sockets = new Set<net.Socket>();
  counted.server = net.createServer((socket) => {
    counted.opened += 1;
    counted.open += 1;
    const upstream = net.connect(port, "127.0.0.1");
    for (const end of [socket, upstream]) {
      end.setNoDelay(true);
      sockets.add(end);
      end.on("error", () => undefined);
    }
    socket.pipe(upstream).pipe(socket);
    socket.once("close", () => {
      counted.open -= 1;
      upstream.destroy();
    });
    upstream.once("close", () => socket.destroy());
  });
  await new Promise<void>((resolve) => counted.server.listen(0, "127.0.0.1", resolve));
  counted.port = (counted.server.address() as net.AddressInfo).port;
  const stop = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => counted.server.close(() => resolve()));
  };
  return { counted, stop };
}

const until = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe("gRPC channels are open and warm before a call needs them: at start (warm) and at each renewal (issue 39, item 13)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "docex-kit-warmth-"));
  let server: GrpcServer;
  let serverPort: number;
  /** Ping answers after `delayMs` of its request (0 unless given), so that a call can be kept in flight. */
  let relay: Awaited<ReturnType<typeof connectionCounter>>;
  let client: GrpcClient | undefined;

  before(async () => {
    await ensureGrpcIdentityDirectory(dir, ["document", "webhook"]);
    server = new GrpcServer(createLogger("grpc-warmth-test", "silent"), { identity: GrpcIdentity.fromDirectory("document", dir) });
    server.addService(
      PingClient.service,
      "docex.document.v1.Document",
      {
        Ping: async (request: { delayMs?: number }) => {
          await new Promise((resolve) => setTimeout(resolve, request.delayMs ?? 0));
          return { pong: true };
        },
      },
      ANY_SERVICE,
    );
    serverPort = await server.listen("127.0.0.1", 0);
  });

  beforeEach(async () => {
    relay = await connectionCounter(serverPort);
    // Mutual TLS, as between the services; renewals only when the test asks (renew()).
    client = new GrpcClient(PingClient, `127.0.0.1:${relay.counted.port}`, {
      identity: GrpcIdentity.fromDirectory("webhook", dir),
      serverName: "document",
      deadlineMs: 5_000,
      renewEveryMs: 3_600_000,
    });
  });

  afterEach(async () => {
    client?.close();
    await relay.stop();
  });

  after(async () => {
    await server.shutdown(1_000);
    rmSync(dir, { recursive: true, force: true });
  });

  it("warm() opens the connection (handshake and a first answer) before any call: the first call opens none", async () => {
    expect(client!.connectivityState, "a new channel connects only when asked").to.equal(grpc.connectivityState.IDLE);
    expect(await client!.warm()).to.equal(true);
    expect(client!.connectivityState).to.equal(grpc.connectivityState.READY);
    expect(relay.counted.opened).to.equal(1);
    await client!.unary("Ping", {});
    expect(relay.counted.opened, "connections opened by the first call").to.equal(1);
  });

  it("warm() answers false at once when nothing listens (a dependency that is down is not waited for)", async () => {
    await relay.stop();
    const started = performance.now();
    expect(await client!.warm()).to.equal(false);
    expect(performance.now() - started).to.be.below(2_000);
  });

  it("a renewal opens and warms the new connection while the old one still carries a call, which finishes on it; the next call opens none", async () => {
    await client!.warm();
    const inFlight = client!.unary<{ delayMs: number }, { pong: boolean }>("Ping", { delayMs: 500 });
    await client!.renew();
    // The new connection answered before the renewal returned, and the old one is still open under its call.
    expect(relay.counted.opened, "connections opened").to.equal(2);
    expect(relay.counted.open, "connections open right after the renewal").to.equal(2);
    expect(client!.connectivityState, "the renewed channel").to.equal(grpc.connectivityState.READY);
    expect(await inFlight).to.deep.equal({ pong: true });
    await until(() => relay.counted.open === 1, 5_000);

    const started = performance.now();
    await client!.unary("Ping", {});
    const elapsedMs = performance.now() - started;
    expect(relay.counted.opened, "connections opened by the call after the renewal").to.equal(2);
    expect(relay.counted.open).to.equal(1);
    // Measured, not only counted: without a handshake the call is an ordinary one.
    expect(elapsedMs, "the call after the renewal (ms)").to.be.below(200);
  });

  it("a renewal leaves a channel that is not in use as it is (no connection to a dependency nothing calls)", async () => {
    await client!.renew();
    expect(relay.counted.opened).to.equal(0);
  });

  it("clients renew before the servers' connection age ends a connection (grpc-js: the age less 10 % at the least)", () => {
    expect(RENEW_CHANNEL_MS).to.be.below(MAX_CONNECTION_AGE_MS * 0.9);
  });
});
