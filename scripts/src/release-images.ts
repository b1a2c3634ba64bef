/**
 * The release step for images: pins every image of an overlay's `images:` (deploy/k8s/overlays/production by default)
 * to the digest its registry serves for its tag, writing `digest:` beside `newTag:` (kustomize then renders
 * `name:tag@sha256:…`), so that every node runs the very build that was released, whatever the tag points at later.
 * With `--release <version>`, docex's own images (those named `docex/<process>`) first get that tag.
 *
 *   node scripts/dist/release-images.js --release 0.2.0                 # docex's images at 0.2.0, every image by digest
 *   node scripts/dist/release-images.js --registry docker.io=https://mirror.internal
 *   node scripts/dist/release-images.js --check                         # fails when an image has no digest
 *
 * It asks each registry over the OCI Distribution API (`HEAD /v2/<repository>/manifests/<tag>`, the digest of the
 * image index when there is one, so that every platform is pinned), anonymously or with the token its
 * `WWW-Authenticate` challenge names; `REGISTRY_AUTH_<HOST>` (user:password, the host in capitals with every other
 * character an underscore: REGISTRY_AUTH_REGISTRY_DOCEX_IO) authenticates to a private one. Nothing is written
 * unless every image resolves. Comments and order in kustomization.yaml are kept.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMap, isSeq, parseDocument, Scalar, type YAMLMap } from "yaml";

/** What the release step needs of HTTP: the global fetch, or a test's. */
export type Fetch = (url: string, init?: { method?: string; headers?: Record<string, string> }) => Promise<Response>;

export interface PinOptions {
  /** The tag docex's own images (`docex/<process>`) get; unchanged when absent. */
  release?: string;
  /** Base URL of a registry host's API (`docker.io` → `https://mirror.internal`); default `https://<host>`. */
  registryUrls?: Record<string, string>;
  fetch?: Fetch;
  env?: NodeJS.ProcessEnv;
}

export interface PinnedImage {
  name: string;
  reference: string;
  digest: string;
}

const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Registry host, repository and tag of an image reference, as Docker reads it (`nats` is docker.io's library/nats). */
export function parseImageReference(image: string, tag: string): { host: string; repository: string; tag: string } {
  const [first = "", ...rest] = image.split("/");
  const hasHost = rest.length > 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  const host = hasHost ? first : "docker.io";
  const repository = hasHost ? rest.join("/") : rest.length === 0 ? `library/${first}` : image;
  return { host, repository, tag };
}

function apiBase(host: string, registryUrls: Record<string, string>): string {
  const configured = registryUrls[host];
  if (configured) return configured.replace(/\/+$/, "");
  return host === "docker.io" ? "https://registry-1.docker.io" : `https://${host}`;
}

function basicCredentials(host: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[`REGISTRY_AUTH_${host.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`];
  return value ? `Basic ${Buffer.from(value).toString("base64")}` : undefined;
}

/** `Bearer realm="…",service="…",scope="…"` → its parameters. */
function challengeParameters(header: string): Record<string, string> {
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map(([, key = "", value = ""]) => [key, value]));
}

/** The digest a registry serves for repository:tag (the image index's, for a multi-platform image). */
export async function resolveDigest(
  reference: { host: string; repository: string; tag: string },
  options: Pick<PinOptions, "registryUrls" | "fetch" | "env"> = {},
): Promise<string> {
  const fetchImpl = options.fetch ?? (fetch as Fetch);
  const base = apiBase(reference.host, options.registryUrls ?? {});
  const url = `${base}/v2/${reference.repository}/manifests/${encodeURIComponent(reference.tag)}`;
  const basic = basicCredentials(reference.host, options.env ?? process.env);
  const ask = (method: "HEAD" | "GET", authorization?: string) =>
    fetchImpl(url, { method, headers: { Accept: MANIFEST_TYPES, ...(authorization ? { Authorization: authorization } : {}) } });
  const where = `${reference.host}/${reference.repository}:${reference.tag}`;

  let authorization = basic;
  let response = await ask("HEAD", authorization);
  if (response.status === 401) {
    const challenge = response.headers.get("www-authenticate") ?? "";
    if (/^Bearer /i.test(challenge)) {
      const { realm, service, scope } = challengeParameters(challenge);
      if (!realm) throw new Error(`${where}: the registry's Bearer challenge names no realm`);
      const tokenUrl = new URL(realm);
      if (service) tokenUrl.searchParams.set("service", service);
      tokenUrl.searchParams.set("scope", scope ?? `repository:${reference.repository}:pull`);
      const tokenResponse = await fetchImpl(tokenUrl.toString(), { headers: basic ? { Authorization: basic } : {} });
      if (!tokenResponse.ok) throw new Error(`${where}: no pull token from ${tokenUrl.origin} (HTTP ${tokenResponse.status})`);
      const body = (await tokenResponse.json()) as { token?: string; access_token?: string };
      const token = body.token ?? body.access_token;
      if (!token) throw new Error(`${where}: the token answer holds no token`);
      authorization = `Bearer ${token}`;
      response = await ask("HEAD", authorization);
    }
  }
  if (response.status === 404) throw new Error(`${where}: no such tag in the registry`);
  if (!response.ok) throw new Error(`${where}: the registry answered HTTP ${response.status}`);
  let digest = response.headers.get("docker-content-digest") ?? undefined;
  if (!digest) {
    // A registry that leaves the header off a HEAD: the digest is that of the manifest's bytes.
    const full = await ask("GET", authorization);
    if (!full.ok) throw new Error(`${where}: the registry answered HTTP ${full.status}`);
    digest =
      full.headers.get("docker-content-digest") ??
      `sha256:${createHash("sha256")
        .update(Buffer.from(await full.arrayBuffer()))
        .digest("hex")}`;
  }
  if (!DIGEST.test(digest)) throw new Error(`${where}: ${digest} is not a sha256 digest`);
  return digest;
}

/**
 * kustomization.yaml's text with every `images:` entry pinned to its digest (and docex's at `release`). Throws,
 * naming the images, when any cannot be resolved.
 */
export async function pinImages(text: string, options: PinOptions = {}): Promise<{ text: string; pinned: PinnedImage[] }> {
  const document = parseDocument(text);
  const images = document.get("images");
  if (!isSeq(images) || images.items.length === 0) throw new Error("the kustomization has no images: to pin");
  const entries = images.items.filter((item): item is YAMLMap => isMap(item));
  const results = await Promise.allSettled(
    entries.map(async (entry) => {
      const name = String(entry.get("name") ?? "");
      if (options.release && name.startsWith("docex/")) {
        // Quoted: a release such as 1.0 must stay a string, not become a number.
        const release = new Scalar(options.release);
        release.type = Scalar.QUOTE_DOUBLE;
        entry.set("newTag", release);
      }
      const image = String(entry.get("newName") ?? name);
      const tag = entry.get("newTag");
      if (typeof tag !== "string" || tag === "") throw new Error(`${image}: no newTag to pin (a digest alone would hide the version)`);
      const digest = await resolveDigest(parseImageReference(image, tag), options);
      entry.set("digest", digest);
      return { name, reference: `${image}:${tag}`, digest };
    }),
  );
  const failures = results.flatMap((result) => (result.status === "rejected" ? [(result.reason as Error).message] : []));
  if (failures.length > 0) throw new Error(`not every image could be pinned, nothing written:\n  ${failures.join("\n  ")}`);
  return {
    text: document.toString({ lineWidth: 0 }),
    pinned: results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])),
  };
}

/** The images of a kustomization's `images:` that carry no digest. */
export function unpinnedImages(text: string): string[] {
  const images = parseDocument(text).toJS() as { images?: { name: string; newName?: string; digest?: string }[] };
  return (images.images ?? []).filter((image) => !DIGEST.test(image.digest ?? "")).map((image) => image.newName ?? image.name);
}

async function main(argv: string[]): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const value = (flag: string) => {
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const overlay = path.resolve(root, value("--overlay") ?? "deploy/k8s/overlays/production");
  const file = path.join(overlay, "kustomization.yaml");
  const text = readFileSync(file, "utf8");
  if (argv.includes("--check")) {
    const unpinned = unpinnedImages(text);
    if (unpinned.length > 0) {
      process.stderr.write(`${path.relative(root, file)}: no digest for ${unpinned.join(", ")}\n`);
      process.exit(1);
    }
    return;
  }
  const registryUrls: Record<string, string> = {};
  argv.forEach((arg, index) => {
    if (arg !== "--registry") return;
    const [host, url] = (argv[index + 1] ?? "").split(/=(.*)/s);
    if (!host || !url) throw new Error("--registry takes host=url");
    registryUrls[host] = url;
  });
  const { text: pinned, pinned: images } = await pinImages(text, { release: value("--release"), registryUrls });
  writeFileSync(file, pinned);
  for (const image of images) process.stdout.write(`${image.reference}@${image.digest}\n`);
  process.stdout.write(`wrote ${path.relative(root, file)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  });
}
