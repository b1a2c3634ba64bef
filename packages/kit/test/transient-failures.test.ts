import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { UpstreamError } from "../src/errors.js";
import { GrpcClient } from "../src/grpc/client.js";
import { GrpcIdentity } from "../src/grpc/identity.js";
import { GrpcServer } from "../src/grpc/server.js";
import { isTransientDatabaseFailure, isTransientFailure } from "../src/transient-failures.js";
import { silentLogger } from "./support.js";

/** A driver error as Sequelize hands it on: its own error with the driver's under `parent` and `original`. */
function sequelizeError(name: string, driver: { message: string; code?: string }): Error {
  const parent = Object.assign(new Error(driver.message), driver.code ? { code: driver.code } : {});
  return Object.assign(new Error(driver.message), { name, parent, original: parent });
}

describe("which failures are a lost database connection (503 database_unavailable), and which are not", () => {
  const lost: Array<[string, Error]> = [
    [
      "the server terminated the backend (57P01)",
      sequelizeError("SequelizeDatabaseError", { message: "terminating connection due to administrator command", code: "57P01" }),
    ],
    [
      "the server crashed (57P02)",
      sequelizeError("SequelizeDatabaseError", { message: "terminating connection due to crash of another server process", code: "57P02" }),
    ],
    [
      "the server is starting or stopping (57P03)",
      sequelizeError("SequelizeConnectionError", { message: "the database system is starting up", code: "57P03" }),
    ],
    [
      "too many connections while the pool reconnects (53300)",
      sequelizeError("SequelizeConnectionError", { message: "sorry, too many clients already", code: "53300" }),
    ],
    ["the socket ended under a query", sequelizeError("SequelizeDatabaseError", { message: "Connection terminated unexpectedly" })],
    [
      "a client whose connection failed is asked to query",
      sequelizeError("SequelizeDatabaseError", { message: "Client has encountered a connection error and is not queryable" }),
    ],
    ["a closed client is asked to query", sequelizeError("SequelizeDatabaseError", { message: "Client was closed and is not queryable" })],
    ["the connection was reset", sequelizeError("SequelizeDatabaseError", { message: "read ECONNRESET", code: "ECONNRESET" })],
    [
      "a write to a closed socket",
      sequelizeError("SequelizeDatabaseError", { message: "This socket has been ended by the other party", code: "EPIPE" }),
    ],
    [
      "the server refuses connections",
      sequelizeError("SequelizeConnectionRefusedError", { message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" }),
    ],
    [
      "no connection free within the acquire timeout",
      Object.assign(new Error("Operation timeout"), { name: "SequelizeConnectionAcquireTimeoutError" }),
    ],
  ];
  for (const [what, error] of lost) {
    it(`${what}: transient`, () => {
      expect(isTransientDatabaseFailure(error)).to.equal(true);
      expect(isTransientFailure(error)).to.equal(true);
    });
  }

  const notLost: Array<[string, Error]> = [
    ["a unique violation", sequelizeError("SequelizeUniqueConstraintError", { message: "duplicate key value", code: "23505" })],
    ["a syntax error", sequelizeError("SequelizeDatabaseError", { message: 'syntax error at or near "SELEC"', code: "42601" })],
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
          throw sequelizeError("SequelizeDatabaseError", { message: "Client has encountered a connection error and is not queryable" });
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
