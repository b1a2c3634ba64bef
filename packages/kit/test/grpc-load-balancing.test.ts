import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { GrpcClient } from "../src/grpc/client.js";
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
async function pingServer(name: string, options: { maxConnectionAgeMs?: number } = {}) {
  const server = new GrpcServer(logger, { identity, ...options });
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
  served.port = await server.listen("127.0.0.1", 0);
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
});
