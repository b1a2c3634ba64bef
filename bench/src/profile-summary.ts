/**
 * Summarises V8 CPU profiles (`node --cpu-prof`): per profile, where the samples fell, by package and by function
 * (self time), as markdown. The stack benchmark writes one profile per process with BENCH_STACK_CPU_PROF=<dir>.
 *
 *   node dist/profile-summary.js <dir> [top=12] [skip seconds=0]
 *
 * `skip`: samples of the first seconds of each profile are left out (start-up: loading and compiling modules).
 * A profile's file name starts with the process's name (stack.ts renames them so).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package of node_modules, a docex package, Node itself, or V8's own work. */
function ownerOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const docex = /\/(services|packages|gateway|protos)\/([^/]+)?/.exec(url);
  if (docex) return docex[1] === "gateway" || docex[1] === "protos" ? `docex ${docex[1]}` : `docex ${docex[2]}`;
  if (url.startsWith("node:")) return "node";
  return url;
}

function summarise(file: string, top: number, skipSeconds: number): string[] {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the sample's time is the next delta.
  let at = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index] ?? 0;
    if (at < skipSeconds * 1e6) continue;
    const micros = profile.timeDeltas[index + 1] ?? 0;
    selfMicros.set(profile.samples[index]!, (selfMicros.get(profile.samples[index]!) ?? 0) + micros);
  }
  const total = [...selfMicros.values()].reduce((sum, micros) => sum + micros, 0);
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    const owner = ownerOf(url, functionName);
    owners.set(owner, (owners.get(owner) ?? 0) + micros);
    const name = `${functionName || "(anonymous)"} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ""}`.trim();
    const key = `${owner} · ${name}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const idle = [...selfMicros]
    .filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)")
    .reduce((sum, [, micros]) => sum + micros, 0);
  const busy = total - idle;
  const percent = (micros: number) => `${((micros / busy) * 100).toFixed(1)} %`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  const name = path.basename(file).split(".")[0];
  return [
    `### ${name}: ${(busy / 1000).toFixed(0)} ms of CPU in ${(total / 1e6).toFixed(0)} s sampled${skipSeconds ? ` (after the first ${skipSeconds} s)` : ""}`,
    "",
    "| where (self time) | share of CPU |",
    "|---|---:|",
    ...sorted(owners).map(([owner, micros]) => `| ${owner} | ${percent(micros)} |`),
    "",
    "| function | share of CPU |",
    "|---|---:|",
    ...sorted(functions).map(([key, micros]) => `| ${key.replaceAll("|", "\\|")} | ${percent(micros)} |`),
    "",
  ];
}

const [directory, topArgument, skipArgument] = process.argv.slice(2);
if (!directory) {
  process.stderr.write("usage: node dist/profile-summary.js <directory of .cpuprofile files> [top]\n");
  process.exit(2);
}
const files = readdirSync(directory)
  .filter((file) => file.endsWith(".cpuprofile"))
  .sort();
const lines = files.flatMap((file) => summarise(path.join(directory, file), Number(topArgument ?? 12), Number(skipArgument ?? 0)));
process.stdout.write(`${lines.join("\n")}\n`);
