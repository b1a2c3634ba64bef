import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { TLSSocket } from "node:tls";
import { createGrpcCertificateAuthority, ensureGrpcIdentityDirectory, issueGrpcCertificate } from "@docex/private-ca";
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { UpstreamError } from "../src/errors.js";
import { GrpcClient } from "../src/grpc/client.js";
import { GrpcIdentity, grpcIdentityFromConfig } from "../src/grpc/identity.js";
import { GrpcServer } from "../src/grpc/server.js";
import { createLogger } from "../src/logger.js";
import { silentLogger } from "./support.js";

// A one-method service with JSON messages, so that the kit's test needs no .proto.
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()),
};
const method = (name: string) => ({
  path: `/docex.test.v1.Echo/${name}`,
  requestStream: false,
  responseStream: false,
  requestSerialize: json.serialize,
  requestDeserialize: json.deserialize,
  responseSerialize: json.serialize,
  responseDeserialize: json.deserialize,
});
const echoService = { Echo: method("Echo"), Open: method("Open") } as unknown as grpc.ServiceDefinition;
const EchoClient = grpc.makeGenericClientConstructor(echoService, "Echo");
const healthService = {
  Check: {
    path: "/grpc.health.v1.Health/Check",
    requestStream: false,
    responseStream: false,
    requestSerialize: () => Buffer.alloc(0),
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (bytes: Buffer) => bytes,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
} as unknown as grpc.ServiceDefinition;
const HealthClient = grpc.makeGenericClientConstructor(healthService, "Health");

type Raw = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response?: unknown) => void,
) => void;

/** One call through a bare grpc-js client; the status code it ends with (OK = 0). */
function statusOf(
  Client: grpc.ServiceClientConstructor,
  address: string,
  name: string,
  credentials: grpc.ChannelCredentials,
  options: grpc.ChannelOptions = {},
) {
  const client = new Client(address, credentials, options);
  return new Promise<{ code: grpc.status; details: string }>((resolve) => {
    (client as unknown as Record<string, Raw>)[name]!.call(client, {}, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (error) => {
      client.close();
      resolve({ code: error?.code ?? grpc.status.OK, details: error?.details ?? "" });
    });
  });
}

describe("gRPC service identity (mutual TLS and per-method callers)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "docex-kit-identity-"));
  const ours = path.join(dir, "ours");
  const theirs = path.join(dir, "theirs");
  let server: GrpcServer;
  let address: string;
  const handled: string[] = [];
  const as = (service: string, from = ours) => GrpcIdentity.fromDirectory(service, from);

  before(async () => {
    await ensureGrpcIdentityDirectory(ours, ["document", "learning", "webhook", "membership"]);
    // Another CA issuing a certificate with the same name: it must not pass for ours.
    await ensureGrpcIdentityDirectory(theirs, ["learning"]);
    server = new GrpcServer(silentLogger, { identity: as("document") });
    server.addService(
      echoService,
      "docex.test.v1.Echo",
      {
        Echo: async (_request: unknown, ctx) => {
          handled.push(ctx.caller);
          return { caller: ctx.caller };
        },
        Open: async () => ({}),
      },
      { Echo: ["learning"], Open: [] },
    );
    address = `127.0.0.1:${await server.listen("127.0.0.1", 0)}`;
  });

  after(async () => {
    await server?.shutdown(1_000);
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    handled.length = 0;
  });

  it("the right caller passes, and the handler learns its name from the certificate", async () => {
    const client = new GrpcClient(EchoClient, address, { identity: as("learning"), serverName: "document" });
    try {
      expect(await client.unary("Echo", {})).to.deep.equal({ caller: "learning" });
      expect(handled).to.deep.equal(["learning"]);
    } finally {
      client.close();
    }
  });

  it("the peer's certificate is read once per call: the handler gets the caller the check found", async () => {
    const client = new GrpcClient(EchoClient, address, { identity: as("learning"), serverName: "document" });
    const original = TLSSocket.prototype.getPeerCertificate;
    let reads = 0;
    TLSSocket.prototype.getPeerCertificate = function (this: TLSSocket, ...args: Parameters<typeof original>) {
      reads++;
      return original.apply(this, args);
    } as typeof original;
    try {
      await client.unary("Echo", {}); // the connection's handshake reads certificates too
      reads = 0;
      for (let call = 0; call < 5; call++) expect(await client.unary("Echo", {})).to.deep.equal({ caller: "learning" });
      expect(reads).to.equal(5);
    } finally {
      TLSSocket.prototype.getPeerCertificate = original;
      client.close();
    }
  });

  it("a call without a client certificate is refused before any handler runs", async () => {
    const noCertificate = grpc.credentials.createSsl(readFileSync(path.join(ours, "ca.crt")));
    const tlsOnly = await statusOf(EchoClient, address, "Echo", noCertificate, as("learning").channelOptions("document"));
    expect(tlsOnly.code).to.be.oneOf([grpc.status.UNAVAILABLE, grpc.status.UNAUTHENTICATED]);
    const plaintext = await statusOf(EchoClient, address, "Echo", grpc.credentials.createInsecure());
    expect(plaintext.code).to.equal(grpc.status.UNAVAILABLE);
    expect(handled).to.deep.equal([]);
  });

  it("a certificate of another CA is refused, even with an allowed service name", async () => {
    // The stranger trusts our CA (it has read ca.crt somewhere); our server must still not trust it.
    const credentials = grpc.credentials.createSsl(
      readFileSync(path.join(ours, "ca.crt")),
      readFileSync(path.join(theirs, "learning.key")),
      readFileSync(path.join(theirs, "learning.crt")),
    );
    const answer = await statusOf(EchoClient, address, "Echo", credentials, as("learning").channelOptions("document"));
    expect(answer.code).to.be.oneOf([grpc.status.UNAVAILABLE, grpc.status.UNAUTHENTICATED]);
    expect(handled).to.deep.equal([]);
  });

  it("a valid certificate of a service not in the method's callers is PERMISSION_DENIED", async () => {
    const webhook = as("webhook");
    const answer = await statusOf(EchoClient, address, "Echo", webhook.channelCredentials(), webhook.channelOptions("document"));
    expect(answer).to.deep.equal({ code: grpc.status.PERMISSION_DENIED, details: "webhook may not call /docex.test.v1.Echo/Echo" });
    // A method with an empty list is nobody's, not everybody's.
    const learning = as("learning");
    const closed = await statusOf(EchoClient, address, "Open", learning.channelCredentials(), learning.channelOptions("document"));
    expect(closed.code).to.equal(grpc.status.PERMISSION_DENIED);
    // The kit's client takes it for a deployment fault (502), not for a user's missing permission.
    const client = new GrpcClient(EchoClient, address, { identity: webhook, serverName: "document" });
    try {
      const error = await client.unary("Echo", {}).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(UpstreamError);
      expect(error).to.include({ status: 502, code: "upstream_refused" });
    } finally {
      client.close();
    }
    expect(handled).to.deep.equal([]);
  });

  it("grpc.health.v1 answers any service of the CA", async () => {
    const webhook = as("webhook");
    const answer = await statusOf(HealthClient, address, "Check", webhook.channelCredentials(), webhook.channelOptions("document"));
    expect(answer.code).to.equal(grpc.status.OK);
  });

  it("a client refuses a server whose certificate names another service than the one it calls", async () => {
    const learning = as("learning");
    const answer = await statusOf(EchoClient, address, "Echo", learning.channelCredentials(), learning.channelOptions("membership"));
    expect(answer.code).to.equal(grpc.status.UNAVAILABLE);
    expect(handled).to.deep.equal([]);
  });

  it("configuration: mutual TLS unless GRPC_INSECURE=true, which logs a warning", () => {
    expect(() => grpcIdentityFromConfig("document", { GRPC_INSECURE: false })).to.throw(/GRPC_TLS_DIR is not set/);
    expect(() => grpcIdentityFromConfig("document", { GRPC_INSECURE: false, GRPC_TLS_DIR: dir })).to.throw(/has no ca\.crt/);
    expect(grpcIdentityFromConfig("document", { GRPC_INSECURE: false, GRPC_TLS_DIR: ours }).isInsecure).to.equal(false);
    const lines: string[] = [];
    const logger = createLogger("kit-test", "warn", { write: (line: string) => lines.push(line) });
    expect(grpcIdentityFromConfig("document", { GRPC_INSECURE: true }, logger).isInsecure).to.equal(true);
    expect(lines.join("")).to.include("GRPC_INSECURE=true");
  });
});

describe("gRPC identity renewed in its directory (cert-manager renewing the mounted Secret)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "docex-kit-renewal-"));
  const live = path.join(dir, "live");
  const renewed = path.join(dir, "renewed");
  const FILES = ["ca.crt", "document.crt", "document.key", "learning.crt", "learning.key"];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("servers and clients take renewed certificates, even of a new CA, for new connections without a restart", async () => {
    await ensureGrpcIdentityDirectory(live, ["document", "learning"]);
    await ensureGrpcIdentityDirectory(renewed, ["document", "learning"]); // another CA: nothing of the first one passes
    const before = (file: string) => readFileSync(path.join(live, file));
    const previous = GrpcIdentity.fromPem("learning", { ca: before("ca.crt"), cert: before("learning.crt"), key: before("learning.key") });
    const server = new GrpcServer(silentLogger, { identity: GrpcIdentity.fromDirectory("document", live, { refreshMs: 100 }) });
    server.addService(
      echoService,
      "docex.test.v1.Echo",
      { Echo: async (_request: unknown, ctx) => ({ caller: ctx.caller }), Open: async () => ({}) },
      {
        Echo: ["learning"],
        Open: [],
      },
    );
    const address = `127.0.0.1:${await server.listen("127.0.0.1", 0)}`;
    const learning = GrpcIdentity.fromDirectory("learning", live, { refreshMs: 100 });
    const call = async (identity: GrpcIdentity) => {
      const client = new GrpcClient(EchoClient, address, { identity, serverName: "document" });
      try {
        return await client.unary("Echo", {});
      } finally {
        client.close();
      }
    };
    try {
      expect(await call(learning)).to.deep.equal({ caller: "learning" });

      for (const file of FILES) copyFileSync(path.join(renewed, file), path.join(live, file));
      await sleep(600);

      // The same identity objects, now on the new CA at both ends: only a reread of the files lets this pass.
      expect(await call(learning)).to.deep.equal({ caller: "learning" });
      // And the server no longer trusts the old CA.
      const refused = await call(previous).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(UpstreamError);
    } finally {
      await server.shutdown(1_000);
    }
  });
});

describe("gRPC CA rotation rehearsed (deploy/README.md, 'Rotating the gRPC CA'): a trust bundle of both CAs, then new certificates, then the old CA dropped", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "docex-kit-ca-rotation-"));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("every step keeps calls between a server and a client working over real mutual TLS, and only the end refuses the old CA", async () => {
    const oldCa = await createGrpcCertificateAuthority({ commonName: "docex gRPC CA" });
    const newCa = await createGrpcCertificateAuthority({ commonName: "docex gRPC CA 2" });
    const leaves = {
      old: { document: await issueGrpcCertificate(oldCa, "document"), learning: await issueGrpcCertificate(oldCa, "learning") },
      new: { document: await issueGrpcCertificate(newCa, "document"), learning: await issueGrpcCertificate(newCa, "learning") },
    };
    // Each process's own GRPC_TLS_DIR, as the pods mount them: the bundle's ca.crt, and its certificate and key.
    const dirs = { document: path.join(dir, "document"), learning: path.join(dir, "learning") };
    const trust = (...cas: { certPem: string }[]) => {
      for (const target of Object.values(dirs))
        writeFileSync(path.join(target, "ca.crt"), cas.map((ca) => `${ca.certPem.trim()}\n`).join(""));
    };
    const identity = (service: "document" | "learning", which: "old" | "new") => {
      writeFileSync(path.join(dirs[service], `${service}.crt`), leaves[which][service].certPem);
      writeFileSync(path.join(dirs[service], `${service}.key`), leaves[which][service].keyPem);
    };
    for (const target of Object.values(dirs)) mkdirSync(target, { recursive: true });
    trust(oldCa);
    identity("document", "old");
    identity("learning", "old");

    // The processes: a server (document) and a client (learning) reading their directories as services do (every
    // 100 ms here, every minute in a pod).
    const server = new GrpcServer(silentLogger, { identity: GrpcIdentity.fromDirectory("document", dirs.document, { refreshMs: 100 }) });
    server.addService(
      echoService,
      "docex.test.v1.Echo",
      { Echo: async (_request: unknown, ctx) => ({ caller: ctx.caller }), Open: async () => ({}) },
      { Echo: ["learning"], Open: [] },
    );
    const address = `127.0.0.1:${await server.listen("127.0.0.1", 0)}`;
    const learning = GrpcIdentity.fromDirectory("learning", dirs.learning, { refreshMs: 100 });
    /** One call on a new connection (a new channel), as after a server ends the old one. */
    const call = async (client: GrpcIdentity) => {
      const channel = new GrpcClient(EchoClient, address, { identity: client, serverName: "document" });
      try {
        return await channel.unary("Echo", {});
      } catch (error) {
        return error;
      } finally {
        channel.close();
      }
    };
    /** A process that has not moved yet: fixed files, trusting what it trusted then. */
    const straggler = (which: "old" | "new", ...cas: { certPem: string }[]) =>
      GrpcIdentity.fromPem("learning", {
        ca: cas.map((ca) => `${ca.certPem.trim()}\n`).join(""),
        cert: leaves[which].learning.certPem,
        key: leaves[which].learning.keyPem,
      });
    const settle = () => sleep(600);
    try {
      // 0. Before: the old CA everywhere. A certificate of the new CA is not trusted yet.
      expect(await call(learning), "0: old CA").to.deep.equal({ caller: "learning" });
      expect(await call(straggler("new", oldCa, newCa)), "0: a new-CA client before the bundle").to.be.instanceOf(UpstreamError);

      // 1. The bundle: both CAs trusted everywhere, certificates unchanged. Nothing breaks, and a certificate of the
      // new CA is now accepted.
      trust(oldCa, newCa);
      await settle();
      expect(await call(learning), "1: bundle, old certificates").to.deep.equal({ caller: "learning" });
      expect(await call(straggler("new", oldCa, newCa)), "1: a new-CA client").to.deep.equal({ caller: "learning" });

      // 2. New certificates, one process at a time, as cert-manager reissues them: the server first, while the
      // client still presents the old CA's; then the client.
      identity("document", "new");
      await settle();
      expect(await call(learning), "2a: new server certificate, old client certificate").to.deep.equal({ caller: "learning" });
      expect(await call(straggler("old", oldCa, newCa)), "2a: an old-CA client").to.deep.equal({ caller: "learning" });
      identity("learning", "new");
      await settle();
      expect(await call(learning), "2b: new certificates at both ends").to.deep.equal({ caller: "learning" });

      // 3. The old CA dropped from the bundle: the new certificates go on; one still of the old CA is refused, which
      // is why every certificate must be reissued before this step.
      trust(newCa);
      await settle();
      expect(await call(learning), "3: new CA only").to.deep.equal({ caller: "learning" });
      expect(await call(straggler("old", oldCa, newCa)), "3: a client that kept its old-CA certificate").to.be.instanceOf(UpstreamError);
      expect(await call(straggler("new", oldCa)), "3: a client that still trusts only the old CA").to.be.instanceOf(UpstreamError);
    } finally {
      await server.shutdown(1_000);
    }
  });
});
