import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const gitFiles = (...patterns: string[]) =>
  execFileSync("git", ["ls-files", ...patterns], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);

const tracked = gitFiles();
/** Every committed file and every folder that holds one, as repository paths. */
const repositoryPaths = new Set(tracked.flatMap((file) => file.split("/").map((_, index, parts) => parts.slice(0, index + 1).join("/"))));
const readmes = gitFiles("README.md", "**/README.md");

/** Named in READMEs but not committed, on purpose: made by a command, by the reader, or beside the repository. */
const NOT_IN_THE_REPOSITORY = [
  /^\.data\//, // what `npm start` makes
  /(^|\/)dist(\/|$)/, // build output
  /^\.\.\/shared\/|^shared\//, // the design documents beside the repository
  /^docker-compose\.override\.yml$/, // the reader's own override
  /^private\/$/, // the CA key's folder in the reader's gRPC identity directory
  /^receiver\.log$/, // the quick start's receiver writes it
];

/**
 * What in a README reads as a repository path: a `code span` or a link target with a folder or a file extension,
 * not a URL, an API path (`/api/...`), a package name, a setting (`A=b`), a placeholder (`<service>`, `{id}`, `…`),
 * an address range (`10.244.0.0/16`) or a Kubernetes label under a domain (`topology.kubernetes.io/zone`).
 */
function namedPaths(text: string): string[] {
  const candidates = [
    ...[...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!),
    ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!.split("#")[0]!),
  ];
  return [
    ...new Set(
      candidates.filter(
        (candidate) =>
          candidate !== "" &&
          !/^[a-z0-9+.-]+:/i.test(candidate) &&
          !/^[/@]/.test(candidate) &&
          !/^\.\w+$/.test(candidate) &&
          !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(candidate) &&
          !/^[a-z0-9-]+(\.[a-z0-9-]+)*\.(io|com|org|net|dev)\//.test(candidate) &&
          !/[<>{}*…$=,|]|\.\.\./.test(candidate) &&
          (candidate.includes("/") || /\.(md|ts|mjs|js|json|ya?ml|proto|sh|pdf)$/.test(candidate)),
      ),
    ),
  ];
}

/**
 * The path, relative to the README's folder (or its `src/`) or to the root; else as the tail of a repository path,
 * for names given in the context of the text ("`grafana/docex-overview.json`" under monitoring, "a service's `main.ts`").
 */
function exists(readme: string, named: string): boolean {
  const folder = path.posix.dirname(readme);
  const bare = named.replace(/\/$/, "");
  const direct = [path.posix.join(folder, bare), path.posix.join(folder, "src", bare), path.posix.normalize(bare)];
  if (direct.some((candidate) => repositoryPaths.has(candidate))) return true;
  const tail = `/${bare.replace(/^(\.\.\/)+/, "")}`;
  return [...repositoryPaths].some((candidate) => `/${candidate}`.endsWith(tail));
}

describe("READMEs say what the repository holds", () => {
  it("every repository path a README names exists", () => {
    const missing = readmes.flatMap((readme) =>
      namedPaths(readFileSync(path.join(root, readme), "utf8"))
        .filter((named) => !NOT_IN_THE_REPOSITORY.some((pattern) => pattern.test(named)))
        .filter((named) => !exists(readme, named))
        .map((named) => `${readme}: ${named}`),
    );
    expect(missing).to.deep.equal([]);
  });

  it("no README promises what an issue will bring: they describe what is there", () => {
    const promises = readmes.flatMap((readme) =>
      readFileSync(path.join(root, readme), "utf8")
        .split("\n")
        .filter((line) => /until (issue|#)\s*\d+|issue \d+ lands|once (issue|#)\s*\d+/i.test(line))
        .map((line) => `${readme}: ${line.trim()}`),
    );
    expect(promises).to.deep.equal([]);
  });

  it("protos/README.md lists exactly the services and methods of the committed .proto files", () => {
    const fromProtos = gitFiles("protos/*.proto").map((file) => {
      const text = readFileSync(path.join(root, file), "utf8");
      const pkg = /^package ([\w.]+);/m.exec(text)![1];
      const service = /^service (\w+)/m.exec(text)![1];
      const methods = [...text.matchAll(/^\s*rpc (\w+)\(/gm)].map((match) => match[1]).sort();
      return `${path.basename(file)} ${pkg}.${service}: ${methods.join(", ")}`;
    });
    const fromReadme = [
      ...readFileSync(path.join(root, "protos/README.md"), "utf8").matchAll(/^\| `(\w+\.proto)` +\| `([\w.]+)` +\| ([^|]+)\|/gm),
    ].map(
      (row) =>
        `${row[1]} ${row[2]}: ${row[3]!
          .replace(/\([^)]*\)/g, "")
          .split(",")
          .map((method) => method.trim())
          .sort()
          .join(", ")}`,
    );
    expect(fromReadme.sort()).to.deep.equal(fromProtos.sort());
  });
});
