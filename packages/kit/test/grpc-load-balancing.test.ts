import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { GrpcClient, MAX_RECONNECT_BACKOFF_MS } from "../src/grpc/client.js";
import { GrpcIdentity } from "../src/grpc/identity.js";
import { ANY_SERVICE, GrpcServer } from "../src/grpc/server.js";
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

const identity = GrpcIdentity.insecure("test");
const logger = createLogger("grpc-load-balancing-test", "silent");

/** A kit GrpcServer answering Ping with its name, and counting the calls it took. */
async function pingServer(name: string, options: { maxConnectionAgeMs?: number; port?: number } = {}) {
  const { port, ...serverOptions } = options;
  const server = new GrpcServer(logger, { identity, ...serverOptions });
  const served = { name, calls: 0, server, port: 0 };
  server.addService(
    PingClient.service,
    "docex.document.v1.Document",
    {
      Ping: async () => {
        served.calls += 1;
        return { from: name };
      },
    },
    ANY_SERVICE,
  );
  served.port = await server.listen("127.0.0.1", port ?? 0);
  return served;
}

describe("gRPC calls spread over every replica a target names (issue 20, item 1)", () => {
  it("a client of two replicas (an ipv4: list, as a headless Service's DNS answer) sends each at least 30 % of its calls", async () => {
    const replicas = [await pingServer("a"), await pingServer("b")];
    const client = new GrpcClient(PingClient, `ipv4:${replicas.map((replica) => `127.0.0.1:${replica.port}`).join(",")}`, {
      identity,
      deadlineMs: 5_000,
    });
    try {
      const calls = 100;
      for (let index = 0; index < calls; index++) await client.unary("Ping", {});
      for (const replica of replicas) expect(replica.calls / calls, `share of replica ${replica.name}`).to.be.at.least(0.3);
    } finally {
      client.close();
      await Promise.all(replicas.map((replica) => replica.server.shutdown(1_000)));
    }
  });

  it("when one replica shuts down, the calls go to the other and none fails", async () => {
    const replicas = [await pingServer("a"), await pingServer("b")];
    const client = new GrpcClient(PingClient, `ipv4:${replicas.map((replica) => `127.0.0.1:${replica.port}`).join(",")}`, {
      identity,
      deadlineMs: 5_000,
    });
    try {
      for (let index = 0; index < 20; index++) await client.unary("Ping", {});
      const stopped = replicas[0]!.server.shutdown(5_000);
      const before = replicas[1]!.calls;
      for (let index = 0; index < 20; index++) await client.unary("Ping", {});
      await stopped;
      expect(replicas[1]!.calls - before, "calls taken by the replica left").to.equal(20);
    } finally {
      client.close();
      await Promise.all(replicas.map((replica) => replica.server.shutdown(1_000)));
    }
  });

  it("a connection past its maximum age is replaced without failing a call (the client then resolves its target again)", async () => {
    const replica = await pingServer("a", { maxConnectionAgeMs: 200 });
    const client = new GrpcClient(PingClient, `dns:///127.0.0.1:${replica.port}`, { identity, deadlineMs: 5_000 });
    try {
      const until = Date.now() + 1_500;
      let calls = 0;
      while (Date.now() < until) {
        await client.unary("Ping", {});
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(replica.calls).to.equal(calls);
    } finally {
      client.close();
      await replica.server.shutdown(1_000);
    }
  });

  it("a server that comes up after twenty seconds of failed calls is used again within the bounded reconnect backoff", async function () {
    this.timeout(45_000);
    // A port nothing listens on yet: taken from a server that is closed again.
    const probe = await pingServer("probe");
    const port = probe.port;
    await probe.server.shutdown(1_000);
    const client = new GrpcClient(PingClient, `127.0.0.1:${port}`, { identity, deadlineMs: 1_000 });
    let replica: Awaited<ReturnType<typeof pingServer>> | undefined;
    try {
      // A call every 5 s, as a start-up task retrying would: each failed connection grows grpc-js's own backoff
      // (1 s × 1.6 each time, up to 120 s), which measured 8 s of failed calls after the server was back.
      for (let attempt = 0; attempt < 4; attempt++) {
        const failed = await client.unary("Ping", {}).then(
          () => false,
          () => true,
        );
        expect(failed).to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
      replica = await pingServer("late", { port });
      const up = Date.now();
      let answered = false;
      while (!answered && Date.now() - up < 15_000) {
        answered = await client.unary("Ping", {}).then(
          () => true,
          () => false,
        );
        if (!answered) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(answered).to.equal(true);
      // The backoff's cap, its jitter (±20 %) and a connection's set-up.
      expect(Date.now() - up).to.be.below(MAX_RECONNECT_BACKOFF_MS * 1.2 + 1_000);
    } finally {
      client.close();
      await replica?.server.shutdown(1_000);
    }
  });
});
