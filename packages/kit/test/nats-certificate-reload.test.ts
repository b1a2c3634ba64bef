// NATS loads its renewed certificate (issue 40): a nats-server serving TLS from a directory laid out as the
// kubelet mounts a Secret, with production's reloader (deploy/k8s/overlays/production/nats-reload-tls.sh) run
// beside it. cert-manager's renewal is played by swapping the Secret's files the way the kubelet does; a new
// connection then gets the new certificate, from the same server process.
import { type ChildProcess, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect as connectTls } from "node:tls";
import { fileURLToPath } from "node:url";
import { createGrpcCertificateAuthority, issueGrpcCertificate } from "@docex/private-ca";
import { expect } from "chai";
import { NatsServerProcess } from "./nats-server-process.js";

const reloaderScript = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../deploy/k8s/overlays/production/nats-reload-tls.sh",
);

/** Writes `files` as a Secret volume's next version: a new timestamped directory, `..data` switched to it in one rename. */
function projectSecret(dir: string, version: number, files: Record<string, string>): void {
  const versionDir = `..2026_12_07_00_00_0${version}.${process.pid}`;
  mkdirSync(path.join(dir, versionDir));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, versionDir, name), content, { mode: 0o644 });
  symlinkSync(versionDir, path.join(dir, "..data_tmp"));
  renameSync(path.join(dir, "..data_tmp"), path.join(dir, "..data"));
  if (version === 1) for (const name of Object.keys(files)) symlinkSync(path.join("..data", name), path.join(dir, name));
}

/** The certificate a client gets on a new connection: NATS's INFO line first, then the TLS handshake. */
function servedCertificate(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: "127.0.0.1", port });
    socket.once("error", reject);
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n")) return;
      socket.off("data", onData);
      const secure = connectTls({ socket, servername: "nats", ca }, () => {
        resolve(secure.getPeerCertificate().fingerprint256);
        secure.end();
      });
      secure.once("error", reject);
    };
    socket.on("data", onData);
  });
}

describe("NATS reloads a renewed certificate (production's reloader beside a TLS nats-server)", function () {
  this.timeout(30_000);
  const dir = mkdtempSync(path.join(tmpdir(), "docex-kit-nats-reload-"));
  const tlsDir = path.join(dir, "nats-tls");
  const pidFile = path.join(dir, "nats.pid");
  let nats: NatsServerProcess | undefined;
  let reloader: ChildProcess | undefined;
  let reloaderOutput = "";

  after(async () => {
    reloader?.kill("SIGTERM");
    await nats?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a connection made after the Secret's files are swapped gets the new certificate, without a restart", async () => {
    const ca = await createGrpcCertificateAuthority({ commonName: "docex test NATS CA", validDays: 1 });
    const first = await issueGrpcCertificate(ca, "nats", { validDays: 1 });
    const renewed = await issueGrpcCertificate(ca, "nats", { validDays: 2 });
    mkdirSync(tlsDir);
    projectSecret(tlsDir, 1, { "ca.crt": ca.certPem, "tls.crt": first.certPem, "tls.key": first.keyPem });

    // Production's nats.conf has its tls block and pid_file in the file the server reloads.
    const conf = path.join(dir, "nats.conf");
    writeFileSync(conf, `pid_file: "${pidFile}"\ntls {\n  cert_file: "${tlsDir}/tls.crt"\n  key_file: "${tlsDir}/tls.key"\n}\n`);
    nats = await NatsServerProcess.start(["--config", conf]);
    const pidBefore = readFileSync(pidFile, "utf8").trim();
    expect(await servedCertificate(nats.port, ca.certPem)).to.equal(new X509Certificate(first.certPem).fingerprint256);

    reloader = spawn("sh", [reloaderScript], {
      env: {
        PATH: `${process.env.PATH}:/usr/sbin:/usr/local/bin`,
        NATS_TLS_DIR: tlsDir,
        NATS_PID_FILE: pidFile,
        RELOAD_INTERVAL_SECONDS: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [reloader.stdout, reloader.stderr]) stream?.on("data", (chunk: Buffer) => (reloaderOutput += chunk.toString()));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reloaderOutput, "an unchanged certificate is not reloaded").not.to.include("reloading");

    projectSecret(tlsDir, 2, { "ca.crt": ca.certPem, "tls.crt": renewed.certPem, "tls.key": renewed.keyPem });
    const wanted = new X509Certificate(renewed.certPem).fingerprint256;
    const deadline = Date.now() + 10_000;
    let served = "";
    while (Date.now() < deadline) {
      served = await servedCertificate(nats.port, ca.certPem);
      if (served === wanted) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(served, `the renewed certificate is served (reloader said: ${reloaderOutput})`).to.equal(wanted);
    expect(reloaderOutput).to.include("reloading nats-server");
    expect(nats.running, "the same server process").to.equal(true);
    expect(readFileSync(pidFile, "utf8").trim()).to.equal(pidBefore);
  });
});
