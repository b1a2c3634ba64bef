import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { connect, createServer, type TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { createGrpcCertificateAuthority, ensureGrpcIdentityDirectory, issueGrpcCertificate } from "../src/certificate-authority.js";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const DAY_MS = 86_400_000;

type Pem = { certPem: string; keyPem: string };

/**
 * One connection through OpenSSL's TLS, both ends requiring a certificate of `trusted`: the server presents `server`
 * and answers with the name on the client's certificate, the client presents `client` and checks that the server is
 * `serverName`. Either both names, or why the connection failed (the client's reason, else the server's).
 */
async function handshake(trusted: string, server: Pem, client: Pem, serverName: string) {
  let serverError: string | undefined;
  const tlsServer = createServer(
    { ca: trusted, cert: server.certPem, key: server.keyPem, requestCert: true, rejectUnauthorized: true },
    (socket: TLSSocket) => socket.end(String(socket.getPeerCertificate().subject?.CN)),
  );
  tlsServer.on("tlsClientError", (error) => {
    serverError = error.message;
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
  const port = (tlsServer.address() as AddressInfo).port;
  try {
    return await new Promise<{ ok: true; serverCn: string; clientCn: string } | { ok: false; error: string }>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port, servername: serverName, ca: trusted, cert: client.certPem, key: client.keyPem });
      let serverCn = "";
      let answer = "";
      let clientError: string | undefined;
      socket.on("secureConnect", () => {
        serverCn = String(socket.getPeerCertificate().subject?.CN);
      });
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString();
      });
      socket.on("error", (error) => {
        clientError = error.message;
      });
      socket.on("close", () =>
        resolve(answer ? { ok: true, serverCn, clientCn: answer } : { ok: false, error: clientError ?? serverError ?? "closed" }),
      );
    });
  } finally {
    tlsServer.close();
  }
}

describe("the private CA: what it issues", () => {
  it("a CA that may sign end-entity certificates only, and a certificate of a service for both server and client authentication", async () => {
    const ca = await createGrpcCertificateAuthority({ commonName: "docex test CA", validDays: 10 });
    const issued = await issueGrpcCertificate(ca, "document", { validDays: 3 });
    const caCert = new X509Certificate(ca.certPem);
    const cert = new X509Certificate(issued.certPem);

    expect(caCert.ca).to.equal(true);
    expect(caCert.subject).to.equal("CN=docex test CA");
    expect(caCert.checkIssued(caCert)).to.equal(true);
    expect(cert.ca).to.equal(false);
    expect(cert.checkIssued(caCert)).to.equal(true);
    expect(cert.verify(caCert.publicKey)).to.equal(true);
    expect(cert.subject).to.equal("CN=document");
    expect(cert.subjectAltName).to.equal("DNS:document");
    expect(cert.checkHost("document")).to.equal("document");
    expect(cert.keyUsage).to.have.members([SERVER_AUTH, CLIENT_AUTH]);
    expect(cert.publicKey.asymmetricKeyDetails).to.deep.include({ namedCurve: "prime256v1" });
    const days = (Date.parse(cert.validTo) - Date.now()) / DAY_MS;
    expect(days).to.be.within(2.9, 3.1);
    expect(issued.keyPem).to.match(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
  });

  it("further names: a server reached as localhost or by its address", async () => {
    const ca = await createGrpcCertificateAuthority();
    const issued = await issueGrpcCertificate(ca, "nats", { dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] });
    const cert = new X509Certificate(issued.certPem);
    expect(cert.subject).to.equal("CN=nats");
    expect(cert.subjectAltName).to.equal("DNS:nats, DNS:localhost, IP Address:127.0.0.1");
    expect(cert.checkIP("127.0.0.1")).to.equal("127.0.0.1");
  });

  it("only a service name is a name it issues for", async () => {
    const ca = await createGrpcCertificateAuthority();
    for (const name of ["", "Document", "document.example", "9lives", "a b", "CN=x"]) {
      const failure = await issueGrpcCertificate(ca, name).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure, name).to.equal(`not a service name: ${name}`);
    }
  });

  it("two certificates of the CA complete a mutual TLS handshake; one of another CA, or a server of another name, does not", async () => {
    const ca = await createGrpcCertificateAuthority();
    const other = await createGrpcCertificateAuthority();
    const document = await issueGrpcCertificate(ca, "document");
    const learning = await issueGrpcCertificate(ca, "learning");

    expect(await handshake(ca.certPem, document, learning, "document")).to.deep.equal({
      ok: true,
      serverCn: "document",
      clientCn: "learning",
    });
    const stranger = await handshake(ca.certPem, document, await issueGrpcCertificate(other, "learning"), "document");
    // The server refuses it after the client's side of the handshake is done (TLS 1.3), so it never answers.
    expect(stranger, "a client of another CA").to.deep.include({ ok: false });
    const wrongName = await handshake(ca.certPem, document, learning, "webhook");
    expect(wrongName).to.deep.include({ ok: false });
    expect((wrongName as { error: string }).error).to.match(/does not match|altnames/i);
  });
});

describe("the private CA: a GRPC_TLS_DIR and the compose job's identity volume", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "docex-private-ca-"));
  const modeOf = (file: string) => statSync(file).mode & 0o777;
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("ensureGrpcIdentityDirectory makes a CA and the services' certificates, keeps what exists and adds new services'", async () => {
    const tlsDir = path.join(dir, "grpc-identity");
    expect(await ensureGrpcIdentityDirectory(tlsDir, ["document", "learning"])).to.deep.equal([
      "ca.key",
      "ca.crt",
      "document.key",
      "document.crt",
      "learning.key",
      "learning.crt",
    ]);
    expect(modeOf(tlsDir)).to.equal(0o700);
    expect(modeOf(path.join(tlsDir, "ca.key"))).to.equal(0o600);
    expect(modeOf(path.join(tlsDir, "document.key"))).to.equal(0o600);
    const ca = new X509Certificate(readFileSync(path.join(tlsDir, "ca.crt")));
    expect(new X509Certificate(readFileSync(path.join(tlsDir, "learning.crt"))).checkIssued(ca)).to.equal(true);

    const documentCert = readFileSync(path.join(tlsDir, "document.crt"), "utf8");
    expect(await ensureGrpcIdentityDirectory(tlsDir, ["document", "learning"])).to.deep.equal([]);
    expect(await ensureGrpcIdentityDirectory(tlsDir, ["document", "extraction"])).to.deep.equal(["extraction.key", "extraction.crt"]);
    expect(readFileSync(path.join(tlsDir, "document.crt"), "utf8")).to.equal(documentCert);
    expect(new X509Certificate(readFileSync(path.join(tlsDir, "extraction.crt"))).checkIssued(ca)).to.equal(true);

    // Without its CA key the directory gets a new CA, and every certificate is reissued by it.
    rmSync(path.join(tlsDir, "ca.key"));
    expect(await ensureGrpcIdentityDirectory(tlsDir, ["document"])).to.deep.equal(["ca.key", "ca.crt", "document.key", "document.crt"]);
    const renewed = new X509Certificate(readFileSync(path.join(tlsDir, "ca.crt")));
    expect(new X509Certificate(readFileSync(path.join(tlsDir, "document.crt"))).checkIssued(renewed)).to.equal(true);
  });

  it("the command line gives each service a directory of its own (its certificate and key, and the CA's certificate), the CA key stays in private/", () => {
    const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/identity-cli.ts");
    const volume = path.join(dir, "volume");
    const owner = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
    const run = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", cli, ...args], { encoding: "utf8" });

    const first = run(volume, "--owner", owner, "document", "gateway");
    expect(first.status, first.stderr).to.equal(0);
    expect(first.stdout).to.equal(
      `gRPC identities in ${volume}: wrote ca.key, ca.crt, document.key, document.crt, gateway.key, gateway.crt\n`,
    );
    expect(readdirSync(volume).sort()).to.deep.equal(["document", "gateway", "private"]);
    for (const service of ["document", "gateway"]) {
      const own = path.join(volume, service);
      expect(readdirSync(own).sort(), service).to.deep.equal(["ca.crt", `${service}.crt`, `${service}.key`]);
      expect(modeOf(own)).to.equal(0o700);
      expect(modeOf(path.join(own, `${service}.key`))).to.equal(0o600);
      for (const file of readdirSync(own))
        expect(readFileSync(path.join(own, file)).equals(readFileSync(path.join(volume, "private", file)))).to.equal(true);
    }

    // A later `up` with a new service: the CA and the existing identities are kept.
    const documentCert = readFileSync(path.join(volume, "document", "document.crt"), "utf8");
    const second = run(volume, "--owner", owner, "document", "gateway", "audit");
    expect(second.status, second.stderr).to.equal(0);
    expect(second.stdout).to.equal(`gRPC identities in ${volume}: wrote audit.key, audit.crt\n`);
    expect(readFileSync(path.join(volume, "document", "document.crt"), "utf8")).to.equal(documentCert);
    expect(readdirSync(path.join(volume, "audit")).sort()).to.deep.equal(["audit.crt", "audit.key", "ca.crt"]);
    expect(run(volume, "document").stdout).to.equal(`gRPC identities in ${volume}: all present\n`);

    const usage = run(volume);
    expect(usage.status).to.equal(2);
    expect(usage.stderr).to.match(/^usage: /);
  });
});
