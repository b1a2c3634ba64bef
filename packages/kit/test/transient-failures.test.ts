import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { DatabaseUnavailableError, databaseErrorOf } from "../src/db/errors.js";
import { UpstreamError } from "../src/errors.js";
import { GrpcClient } from "../src/grpc/client.js";
import { GrpcIdentity } from "../src/grpc/identity.js";
import { GrpcServer } from "../src/grpc/server.js";
import { isTransientDatabaseFailure, isTransientFailure } from "../src/transient-failures.js";
import { silentLogger } from "./support.js";

/** A driver error as a statement of the kit's Sql hands it on: the kit's error, the driver's as its `cause`. */
function sqlError(driver: { message: string; code?: string }): Error {
  return databaseErrorOf(Object.assign(new Error(driver.message), driver.code ? { code: driver.code } : {}), "SELECT 1");
}

describe("which failures are a lost database connection (503 database_unavailable), and which are not", () => {
  const lost: Array<[string, Error]> = [
    [
      "the server terminated the backend (57P01)",
      sqlError({ message: "terminating connection due to administrator command", code: "57P01" }),
    ],
    ["the server crashed (57P02)", sqlError({ message: "terminating connection due to crash of another server process", code: "57P02" })],
    ["the server is starting or stopping (57P03)", sqlError({ message: "the database system is starting up", code: "57P03" })],
    ["too many connections while the pool reconnects (53300)", sqlError({ message: "sorry, too many clients already", code: "53300" })],
    ["the socket ended under a query", sqlError({ message: "Connection terminated unexpectedly" })],
    [
      "a client whose connection failed is asked to query",
      sqlError({ message: "Client has encountered a connection error and is not queryable" }),
    ],
    ["a closed client is asked to query", sqlError({ message: "Client was closed and is not queryable" })],
    ["the connection was reset", sqlError({ message: "read ECONNRESET", code: "ECONNRESET" })],
    ["a write to a closed socket", sqlError({ message: "This socket has been ended by the other party", code: "EPIPE" })],
    ["the server refuses connections", sqlError({ message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" })],
    [
      "no connection free within the pool's wait (as pg.Pool words it)",
      new DatabaseUnavailableError("timeout exceeded when trying to connect", new Error("timeout exceeded when trying to connect")),
    ],
    ["no connection free within the pool's wait, the driver's own words", sqlError({ message: "timeout exceeded when trying to connect" })],
    ["a new connection that timed out", sqlError({ message: "Connection terminated due to connection timeout" })],
  ];
  for (const [what, error] of lost) {
    it(`${what}: transient`, () => {
      expect(isTransientDatabaseFailure(error)).to.equal(true);
      expect(isTransientFailure(error)).to.equal(true);
    });
  }

  const notLost: Array<[string, Error]> = [
    ["a unique violation", sqlError({ message: "duplicate key value", code: "23505" })],
    ["a syntax error", sqlError({ message: 'syntax error at or near "SELEC"', code: "42601" })],
    [
      "a refused connection to something other than the database",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9000"), { code: "ECONNREFUSED" }),
    ],
    ["a plain bug", new TypeError("Cannot read properties of undefined")],
  ];
  for (const [what, error] of notLost) {
    it(`${what}: not transient`, () => expect(isTransientDatabaseFailure(error)).to.equal(false));
  }

  it("a called service unavailable or slow is transient, though not the database", () => {
    const unavailable = new UpstreamError(503, "The document service is unavailable.", "upstream_unavailable");
    expect(isTransientDatabaseFailure(unavailable)).to.equal(false);
    expect(isTransientFailure(unavailable)).to.equal(true);
  });
});

describe("a lost database connection at the gRPC edge", () => {
  const json = {
    serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
    deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
  };
  const lookup = {
    Lookup: {
      path: "/docex.test.v1.Lookup/Lookup",
      requestStream: false,
      responseStream: false,
      requestSerialize: json.serialize,
      requestDeserialize: json.deserialize,
      responseSerialize: json.serialize,
      responseDeserialize: json.deserialize,
    },
  } as unknown as grpc.ServiceDefinition;
  const LookupClient = grpc.makeGenericClientConstructor(lookup, "Lookup");

  it("is UNAVAILABLE, which the caller answers as 503 upstream_unavailable, not a 502 for an internal error", async () => {
    const identity = GrpcIdentity.insecure("test");
    const server = new GrpcServer(silentLogger, { identity });
    server.addService(
      lookup,
      "docex.test.v1.Lookup",
      {
        Lookup: async () => {
          throw sqlError({ message: "Client has encountered a connection error and is not queryable" });
        },
      },
      { Lookup: ["test"] },
    );
    const address = `127.0.0.1:${await server.listen("127.0.0.1", 0)}`;
    const client = new GrpcClient(LookupClient, address, { identity });
    try {
      const failure = await client.unary("Lookup", {}).then(
        () => expect.fail("the call succeeded"),
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(UpstreamError);
      expect(failure).to.include({ status: 503, code: "upstream_unavailable" });
    } finally {
      client.close();
      await server.shutdown(1_000);
    }
  });
});
