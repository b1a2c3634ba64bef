import { createServer, type Server, type Socket } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { DomainError, UpstreamError } from "../src/errors.js";
import { GrpcClient } from "../src/grpc/client.js";
import { GrpcIdentity } from "../src/grpc/identity.js";
import { toProblem } from "../src/http/problem.js";

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

async function failureOf(call: Promise<unknown>): Promise<DomainError> {
  try {
    await call;
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  expect.fail("the call succeeded");
}

describe("gRPC client failures name the service, never its address (issue 24)", () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let silentPort: number;
  let closedPort: number;

  before(async () => {
    // Accepts connections and never speaks: calls to it run into their deadline.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  // Nothing answers on these ports: the transport fails before any TLS, so plaintext says the same.
  const identity = GrpcIdentity.insecure("test");

  const leaksNothing = (error: DomainError, port: number) => {
    const problem = toProblem(error, "req-1");
    const text = JSON.stringify(problem);
    expect(text).to.not.include("127.0.0.1");
    expect(text).to.not.include(String(port));
    expect(text).to.not.match(/UNAVAILABLE|DEADLINE|ECONNREFUSED|remote_addr/);
    return problem;
  };

  it("an unreachable service is 503 'the document service is unavailable'", async () => {
    const client = new GrpcClient(PingClient, `127.0.0.1:${closedPort}`, { identity, deadlineMs: 2_000 });
    try {
      const error = await failureOf(client.unary("Ping", {}));
      expect(error).to.be.instanceOf(UpstreamError);
      const problem = leaksNothing(error, closedPort);
      expect(problem).to.include({ status: 503, code: "upstream_unavailable", detail: "The document service is unavailable." });
      expect(String((error.cause as { details?: string }).details), "the cause keeps the details for the logs").to.include(
        String(closedPort),
      );
    } finally {
      client.close();
    }
  });

  it("a service that does not answer in time is 504 naming the service only", async () => {
    const client = new GrpcClient(PingClient, `127.0.0.1:${silentPort}`, { identity, deadlineMs: 300 });
    try {
      const problem = leaksNothing(await failureOf(client.unary("Ping", {})), silentPort);
      expect(problem.status).to.be.oneOf([503, 504]);
      expect(problem.detail).to.match(/^The document service (is unavailable|did not answer in time)\.$/);
    } finally {
      client.close();
    }
  });

  it("an open circuit breaker names the service, not the target", async () => {
    const client = new GrpcClient(PingClient, `127.0.0.1:${closedPort}`, {
      identity,
      deadlineMs: 500,
      breaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 60_000 },
    });
    try {
      for (let i = 0; i < 3; i++) await failureOf(client.unary("Ping", {}));
      const problem = leaksNothing(await failureOf(client.unary("Ping", {})), closedPort);
      expect(problem).to.include({ status: 503, detail: "The document service is unavailable." });
    } finally {
      client.close();
    }
  });
});
