import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createGrpcCertificateAuthority, issueGrpcCertificate } from "@docex/private-ca";
import { jetstreamManager } from "@nats-io/jetstream";
import { expect } from "chai";
import { loadConfig, serviceConfigSchema } from "../src/config.js";
import { connectInfrastructure } from "../src/runtime.js";
import { NatsServerProcess } from "./nats-server-process.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

describe("NATS over TLS (a nats-server of the test's own, with TLS and token auth, as in production)", () => {
  const token = randomBytes(24).toString("hex");
  const database = uniqueName("nats_tls");
  const dir = mkdtempSync(path.join(tmpdir(), "docex-kit-nats-tls-"));
  const caFile = path.join(dir, "ca.crt");
  let nats: NatsServerProcess;

  before(async () => {
    const ca = await createGrpcCertificateAuthority({ commonName: "docex test NATS CA", validDays: 1 });
    // As cert-manager issues NATS's in production; nats.js leaves the TLS server name empty for an IP address, and Node
    // then checks the name "localhost".
    const server = await issueGrpcCertificate(ca, "nats", { validDays: 1, dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] });
    writeFileSync(caFile, ca.certPem);
    writeFileSync(path.join(dir, "nats.crt"), server.certPem);
    writeFileSync(path.join(dir, "nats.key"), server.keyPem, { mode: 0o600 });
    nats = await NatsServerProcess.start([
      "--tls",
      "--tlscert",
      path.join(dir, "nats.crt"),
      "--tlskey",
      path.join(dir, "nats.key"),
      "--auth",
      token,
    ]);
  });

  after(async () => {
    await nats?.dispose();
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(database);
  });

  const start = (env: Record<string, string>) =>
    connectInfrastructure(
      "register",
      loadConfig(serviceConfigSchema("register"), {
        DATABASE_URL: serverUrl,
        DATABASE_NAME: database,
        GRPC_INSECURE: "true",
        LOG_LEVEL: "silent",
        NATS_URL: nats.url,
        NATS_TOKEN: token,
        ...env,
      }),
      { logger: silentLogger, migrations: [] },
    );

  it("a service with NATS_TLS_CA_FILE verifies the server's certificate and publishes over TLS", async () => {
    const infra = await start({ NATS_TLS_CA_FILE: caFile });
    try {
      expect(infra.bus.connection.info?.tls_required, "the server requires TLS").to.equal(true);
      await infra.bus.publish("docex.register.updated", { ok: true }, { msgId: randomUUID() });
      const jsm = await jetstreamManager(infra.bus.connection);
      expect((await jsm.streams.info("DOCEX")).state.messages).to.equal(1);
    } finally {
      await infra.bus.close();
      await infra.sql.close();
    }
  });

  it("without NATS_TLS_CA_FILE the start fails with a message that names the setting", async () => {
    const failure = await start({}).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.include(`cannot connect to NATS at ${nats.url}`).and.to.include("set NATS_TLS_CA_FILE");
  });
});
