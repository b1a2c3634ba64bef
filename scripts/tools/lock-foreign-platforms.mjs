#!/usr/bin/env node
// The registry this project installs from serves only this machine's platform builds of
// packages such as turbo and biome, so `npm install` leaves the other platforms' optional
// packages out of package-lock.json, and `npm ci` then refuses the lockfile as out of sync.
// This adds the missing entries as optional, platform-bound records (never installed here).
// Run it after `npm install` whenever it changes the lockfile.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const platformOf = (name) => {
  const os = ["darwin", "win32", "windows", "android", "freebsd", "linux", "openbsd", "sunos", "aix", "netbsd"].find((candidate) =>
    name.includes(candidate),
  );
  const cpu = ["arm64", "x64", "64", "arm", "ia32", "ppc64", "s390x", "riscv64", "loong64"].find((candidate) =>
    new RegExp(`[-_]${candidate}(\\b|-|$)`).test(name),
  );
  if (!os || !cpu) return undefined;
  const entry = { os: [os === "windows" ? "win32" : os], cpu: [cpu === "64" ? "x64" : cpu] };
  if (name.endsWith("-musl")) entry.libc = ["musl"];
  return entry;
};
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dependency, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/` : "node_modules/";
    if (lock.packages[`${base}${dependency}`] || lock.packages[`node_modules/${dependency}`]) continue;
    const platform = platformOf(dependency);
    if (!platform) continue;
    lock.packages[`node_modules/${dependency}`] = { version, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true };
    added += 1;
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} foreign-platform lock entries`);
