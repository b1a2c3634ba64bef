// The release step that pins the production overlay's images to digests (scripts/src/release-images.ts). No registry
// is reachable from the tests, so the registry here is a small HTTP server on 127.0.0.1 that answers the OCI
// Distribution API the way Docker Hub and other registries do (401 with a Bearer challenge, a token endpoint, HEAD
// on a manifest with Docker-Content-Digest), with made-up manifests: the digests it serves are the test's own, not
// the real images'. What is checked is the step: what it asks, what it writes, and that the overlay it writes
// renders and validates with every image pinned.

import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { parse } from "yaml";
import { parseImageReference, pinImages, unpinnedImages } from "../src/release-images.js";
import { k8sDir, schemaProblems } from "./support/kubernetes.js";
import { renderKustomization } from "./support/kustomize.js";
import { containersOf, isWorkload } from "./support/manifests.js";

const TOKEN = "a-pull-token";

/** A registry: every repository:tag it knows has a manifest (an image index), whose digest it serves. */
function startRegistry(known: (repository: string, tag: string) => boolean) {
  const requests: { method: string; url: string; authorization?: string }[] = [];
  const manifest = (repository: string, tag: string) =>
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [],
      annotations: { repository, tag },
    });
  const digestOf = (repository: string, tag: string) => `sha256:${createHash("sha256").update(manifest(repository, tag)).digest("hex")}`;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://registry");
    requests.push({ method: req.method ?? "", url: url.pathname + url.search, authorization: req.headers.authorization });
    if (url.pathname === "/token") {
      const scope = url.searchParams.get("scope") ?? "";
      if (!/^repository:[\w./-]+:pull$/.test(scope)) return void res.writeHead(400).end();
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token: TOKEN }));
    }
    const match = url.pathname.match(/^\/v2\/(.+)\/manifests\/([^/]+)$/);
    if (!match) return void res.writeHead(404).end();
    const [, repository = "", tag = ""] = match;
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      const realm = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
      return void res
        .writeHead(401, { "www-authenticate": `Bearer realm="${realm}",service="registry.test",scope="repository:${repository}:pull"` })
        .end();
    }
    if (!String(req.headers.accept).includes("application/vnd.oci.image.index.v1+json")) return void res.writeHead(406).end();
    if (!known(repository, decodeURIComponent(tag))) return void res.writeHead(404).end();
    const body = manifest(repository, decodeURIComponent(tag));
    res.writeHead(200, {
      "content-type": "application/vnd.oci.image.index.v1+json",
      "docker-content-digest": digestOf(repository, decodeURIComponent(tag)),
      "content-length": Buffer.byteLength(body),
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  return new Promise<{ url: string; requests: typeof requests; digestOf: typeof digestOf; close: () => Promise<void> }>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        digestOf,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

describe("the release step: the production overlay's images pinned to their registries' digests (scripts/src/release-images.ts)", function () {
  this.timeout(60_000);
  let workDir = "";
  let overlay = "";

  beforeEach(() => {
    // The whole deploy/k8s, as the overlay refers to the base, infra and components beside it.
    workDir = mkdtempSync(path.join(tmpdir(), "docex-release-"));
    cpSync(k8sDir, path.join(workDir, "k8s"), { recursive: true });
    overlay = path.join(workDir, "k8s/overlays/production");
  });
  afterEach(() => rmSync(workDir, { recursive: true, force: true }));

  it("reads references as Docker does: official images under library/, a host only when the first part names one", () => {
    expect(parseImageReference("nats", "2.12.15-alpine")).to.deep.equal({
      host: "docker.io",
      repository: "library/nats",
      tag: "2.12.15-alpine",
    });
    expect(parseImageReference("prom/blackbox-exporter", "v0.27.0")).to.deep.equal({
      host: "docker.io",
      repository: "prom/blackbox-exporter",
      tag: "v0.27.0",
    });
    expect(parseImageReference("registry.docex.io/docex/gateway", "0.2.0")).to.deep.equal({
      host: "registry.docex.io",
      repository: "docex/gateway",
      tag: "0.2.0",
    });
    expect(parseImageReference("localhost:5000/docex/auth", "1")).to.include({ host: "localhost:5000", repository: "docex/auth" });
  });

  it("writes a digest beside every tag, docex's images at the release, keeping the file's comments; the overlay renders with every image as name:tag@digest and validates", async () => {
    const registry = await startRegistry(() => true);
    try {
      const file = path.join(overlay, "kustomization.yaml");
      const before = readFileSync(file, "utf8");
      const { text, pinned } = await pinImages(before, {
        release: "1.0",
        registryUrls: { "docker.io": registry.url, "registry.docex.io": registry.url },
      });
      writeFileSync(file, text);

      const images = (parse(text) as { images: { name: string; newName?: string; newTag: string; digest: string }[] }).images;
      expect(images.length).to.equal((parse(before) as { images: unknown[] }).images.length);
      expect(unpinnedImages(text), "images without a digest").to.deep.equal([]);
      for (const image of images) {
        const reference = parseImageReference(image.newName ?? image.name, image.newTag);
        expect(image.digest, image.name).to.equal(registry.digestOf(reference.repository, reference.tag));
        if (image.name.startsWith("docex/")) expect(image.newTag, `${image.name}: the release, a string`).to.equal("1.0");
      }
      expect(pinned.map((image) => image.reference)).to.include("nats:2.12.15-alpine");
      // Each image asked anonymously, challenged, then with the pull token for its own repository.
      const tokenScopes = registry.requests.filter((request) => request.url.startsWith("/token")).map((request) => request.url);
      expect(tokenScopes).to.include(`/token?service=registry.test&scope=${encodeURIComponent("repository:library/nats:pull")}`);
      expect(
        registry.requests.filter((request) => request.method === "HEAD" && request.authorization === `Bearer ${TOKEN}`).length,
      ).to.equal(images.length);
      // Comments survive: the file stays the one a person reads.
      for (const line of before.split("\n").filter((candidate) => candidate.trim().startsWith("#")))
        expect(text, "a comment of kustomization.yaml").to.include(line.trim());

      const rendered = renderKustomization(overlay);
      const problems: string[] = [];
      for (const workload of rendered.filter(isWorkload)) {
        for (const container of containersOf(workload.spec.template.spec)) {
          if (!/^[^@]+:[^:@/]+@sha256:[0-9a-f]{64}$/.test(container.image))
            problems.push(`${workload.metadata.name}/${container.name}: ${container.image}`);
        }
      }
      expect(problems, `not pinned by tag and digest:\n${problems.join("\n")}`).to.deep.equal([]);
      expect(await schemaProblems(rendered)).to.deep.equal([]);
    } finally {
      await registry.close();
    }
  });

  it("writes nothing when an image's tag is not in its registry, and says which", async () => {
    const registry = await startRegistry((repository) => repository !== "prom/blackbox-exporter");
    try {
      const text = readFileSync(path.join(overlay, "kustomization.yaml"), "utf8");
      const failure = await pinImages(text, { registryUrls: { "docker.io": registry.url, "registry.docex.io": registry.url } }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).to.include("docker.io/prom/blackbox-exporter:v0.27.0: no such tag in the registry");
      expect(failure?.message).to.include("nothing written");
    } finally {
      await registry.close();
    }
  });
});
