// The workspaces a process needs at run time: its own and those its `dependencies` name,
// transitively; never a devDependency (the testkit, the services a test starts beside it).
// deploy/Dockerfile copies only these into an image:
//
//   node deploy/runtime-workspaces.mjs @docex/document     # one folder a line: services/document, packages/kit, …
//
// Run from the root of the repository (or of the tree `turbo prune` made).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const readManifest = (dir) => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));

/** Every workspace folder of the root manifest's `workspaces` (folders, or `parent/*`), by package name. */
export function workspacesByName(root = ".") {
  const byName = new Map();
  for (const pattern of readManifest(root).workspaces ?? []) {
    const parent = path.join(root, pattern.slice(0, -2));
    if (pattern.endsWith("/*") && !existsSync(parent)) continue;
    const dirs = pattern.endsWith("/*")
      ? readdirSync(parent, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => path.posix.join(pattern.slice(0, -2), entry.name))
      : [pattern];
    for (const dir of dirs) if (existsSync(path.join(root, dir, "package.json"))) byName.set(readManifest(path.join(root, dir)).name, dir);
  }
  return byName;
}

/** The folders of `name` and of the workspaces its production dependencies reach, `name`'s first. */
export function runtimeWorkspaces(name, root = ".") {
  const byName = workspacesByName(root);
  if (!byName.has(name)) throw new Error(`no workspace ${name} under ${path.resolve(root)}`);
  const found = [];
  const visit = (current) => {
    const dir = byName.get(current);
    if (dir === undefined || found.includes(dir)) return;
    found.push(dir);
    const manifest = readManifest(path.join(root, dir));
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) visit(dependency);
  };
  visit(name);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const name = process.argv[2];
  if (!name) {
    console.error("usage: node deploy/runtime-workspaces.mjs <package name>");
    process.exit(2);
  }
  for (const dir of runtimeWorkspaces(name)) console.log(dir);
}
