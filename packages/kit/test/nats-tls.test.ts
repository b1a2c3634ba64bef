import "reflect-metadata";
import { randomBytes, randomUUID, webcrypto } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import * as x509 from "@peculiar/x509";
import { expect } from "chai";
import { loadConfig, serviceConfigSchema } from "../src/config.js";
import { createGrpcCertificateAuthority, type GrpcCertificateAuthority } from "../src/grpc/identity.js";
import { connectInfrastructure } from "../src/runtime.js";
import { NatsServerProcess } from "./nats-server-process.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** A server certificate for 127.0.0.1 signed by `ca`, as cert-manager issues NATS's in production. */
async function serverCertificate(ca: GrpcCertificateAuthority): Promise<{ certPem: string; keyPem: string }> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKeyDer = Buffer.from(ca.keyPem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
  const caKey = await webcrypto.subtle.importKey("pkcs8", caKeyDer, ALGORITHM, false, ["sign"]);
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString("hex").replace(/^./, "1"),
    subject: "CN=nats",
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      // nats.js leaves the TLS server name empty for an IP address, and Node then checks the name "localhost".
      new x509.SubjectAlternativeNameExtension([
        { type: "ip", value: "127.0.0.1" },
        { type: "dns", value: "localhost" },
      ]),
    ],
  });
  const keyDer = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${keyDer
    .toString("base64")
    .match(/.{1,64}/g)
    ?.join("\n")}\n-----END PRIVATE KEY-----\n`;
  return { certPem: cert.toString("pem"), keyPem };
}

describe("NATS over TLS (a nats-server of the test's own, with TLS and token auth, as in production)", () => {
  const token = randomBytes(24).toString("hex");
  const database = uniqueName("nats_tls");
  const dir = mkdtempSync(path.join(tmpdir(), "docex-kit-nats-tls-"));
  const caFile = path.join(dir, "ca.crt");
  let nats: NatsServerProcess;

  before(async () => {
    const ca = await createGrpcCertificateAuthority({ commonName: "docex test NATS CA", validDays: 1 });
    const server = await serverCertificate(ca);
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
