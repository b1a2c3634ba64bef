// NATS routes in production are encrypted and authenticated (issue 40 item 9): real nats-server processes run the
// route TLS block of the production render (overlays/production/nats-cluster-tls.conf, as it lands in nats-config),
// with certificates of a test CA in place of cert-manager's. Two servers whose certificates name the route URLs' host
// form a cluster over TLS; a server with a certificate of another CA, one with a certificate of the same CA under
// another name (a service's, say), and one without TLS are all refused as routes.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createGrpcCertificateAuthority, issueGrpcCertificate } from "@docex/private-ca";
import { expect } from "chai";
import { k8sDir } from "./support/kubernetes.js";
import { renderKustomization } from "./support/kustomize.js";
import { findConfigMap } from "./support/manifests.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

interface Server {
  name: string;
  routePort: number;
  httpPort: number;
  child: ChildProcess;
  output: () => string;
}

describe("NATS routes (production): mutual TLS between the servers, refusing any other peer", function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), "docex-nats-routes-"));
  const servers: Server[] = [];
  let routeTls = "";

  before(function () {
    const probe = spawn("nats-server", ["--version"]);
    return new Promise<void>((resolve) => {
      probe.once("error", () => {
        this.skip();
        resolve();
      });
      probe.once("exit", () => resolve());
    }).then(() => {
      const files = findConfigMap(renderKustomization(path.join(k8sDir, "overlays/production")), "nats-config")?.data ?? {};
      routeTls = files["cluster-tls.conf"] ?? "";
      expect(files["cluster.conf"], "the cluster block includes the route TLS").to.match(/^\s*include \.\/cluster-tls\.conf\s*$/m);
    });
  });

  after(async () => {
    for (const server of servers) server.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  /** A server with production's route TLS block, its certificate and CA in `tlsDir` (or no TLS at all). */
  const start = async (name: string, tlsDir: string | undefined, routesTo: number[], given?: number): Promise<Server> => {
    const [clientPort, routePort, httpPort] = [await freePort(), given ?? (await freePort()), await freePort()];
    const tls = tlsDir ? routeTls.replaceAll("/etc/nats-tls/", `${tlsDir}/`) : "";
    const conf = [
      `server_name: ${name}`,
      `listen: 127.0.0.1:${clientPort}`,
      `http: 127.0.0.1:${httpPort}`,
      "cluster {",
      "  name: docex",
      `  listen: 127.0.0.1:${routePort}`,
      // Route URLs by name, as production's nats-<n>.nats-headless: the certificates name localhost here.
      `  routes: [${routesTo.map((port) => `nats://localhost:${port}`).join(", ")}]`,
      tls,
      "}",
      "",
    ].join("\n");
    const file = path.join(dir, `${name}.conf`);
    writeFileSync(file, conf);
    let output = "";
    const child = spawn("nats-server", ["-c", file, "-DV"], { stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr])
      stream?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000)));
    const server = { name, routePort, httpPort, child, output: () => output };
    servers.push(server);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (
        await fetch(`http://127.0.0.1:${httpPort}/healthz`).then(
          (response) => response.ok,
          () => false,
        )
      )
        return server;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${name} did not start:\n${output}`);
  };
  const routesOf = async (server: Server) =>
    ((await (await fetch(`http://127.0.0.1:${server.httpPort}/routez`)).json()) as { routes?: { remote_id: string }[] }).routes ?? [];
  const serverIdOf = async (server: Server) =>
    ((await (await fetch(`http://127.0.0.1:${server.httpPort}/varz`)).json()) as { server_id: string }).server_id;
  const waitFor = async (what: string, check: () => Promise<boolean>, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const tlsDirOf = (name: string, ca: { certPem: string }, cert: { certPem: string; keyPem: string }) => {
    const tlsDir = path.join(dir, name);
    mkdirSync(tlsDir);
    writeFileSync(path.join(tlsDir, "ca.crt"), ca.certPem);
    writeFileSync(path.join(tlsDir, "tls.crt"), cert.certPem);
    writeFileSync(path.join(tlsDir, "tls.key"), cert.keyPem);
    return tlsDir;
  };

  it("two servers with certificates of the CA for the route host form a cluster; other CAs, other names and plaintext are refused", async () => {
    expect(routeTls).to.match(/verify_cert_and_check_known_urls:\s*true/);
    const ca = await createGrpcCertificateAuthority({ commonName: "docex gRPC CA" });
    const other = await createGrpcCertificateAuthority({ commonName: "someone else's CA" });
    // As production's servers, each lists every route URL, its own included (it skips that one).
    const ports = [await freePort(), await freePort()];
    const a = await start("nats-a", tlsDirOf("a", ca, await issueGrpcCertificate(ca, "localhost")), ports, ports[0]);
    const b = await start("nats-b", tlsDirOf("b", ca, await issueGrpcCertificate(ca, "localhost")), ports, ports[1]);
    const idOfB = await serverIdOf(b);
    await waitFor("a route between nats-a and nats-b", async () => (await routesOf(a)).some((route) => route.remote_id === idOfB)).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${a.output().slice(-3000)}\n---\n${b.output().slice(-3000)}`);
      },
    );
    expect(a.output(), "the route is TLS").to.match(/TLS handshake complete|TLS route handshake complete/i);

    const strangers = [
      await start("stranger-ca", tlsDirOf("stranger-ca", other, await issueGrpcCertificate(other, "localhost")), [a.routePort]),
      await start("stranger-name", tlsDirOf("stranger-name", ca, await issueGrpcCertificate(ca, "document")), [a.routePort]),
      await start("plaintext", undefined, [a.routePort]),
    ];
    const strangerIds = await Promise.all(strangers.map(serverIdOf));
    // Each stranger dials nats-a at once and retries every second; give them a few tries.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const remotes = (await routesOf(a)).map((route) => route.remote_id);
    expect(remotes, "nats-a's routes").to.include(idOfB);
    for (const [index, id] of strangerIds.entries()) expect(remotes, `${strangers[index]?.name} is no route of nats-a`).to.not.include(id);
    expect(a.output(), "nats-a refused them in the TLS handshake").to.match(/TLS route handshake error|TLS handshake error|certificate/i);
  });
});
