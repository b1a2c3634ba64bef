/**
 * `npm run bench`: runs every benchmark in bench/dist (each `*.js` built from a file in bench/src, this one aside)
 * as a child process, one after another, and writes bench/REPORT.md: the machine and the run, the headline figures
 * and ratios of each benchmark, then each benchmark's output exactly as it printed it. The report's hand-written
 * part, from its `# Issue notes` heading on (before-and-after comparisons), is kept below what this run wrote.
 *
 *   node dist/run-all.js [name ...]    only the named benchmarks (e.g. `stack delivery`); the report says so
 *
 * BENCH_TIMEOUT_MINUTES (20): a benchmark still running after this is stopped (its process group) and reported.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const distDir = dirname(fileURLToPath(import.meta.url));
const benchDir = join(distDir, "..");
const reportPath = join(benchDir, "REPORT.md");
const self = basename(fileURLToPath(import.meta.url));
/** Modules in bench/dist that are not benchmarks: the OTLP sink the traced runs use, and the CPU profiles' summary. */
const HELPERS = new Set([self, "otlp-sink.js", "profile-summary.js"]);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MINUTES ?? 20) * 60_000;

interface Outcome {
  name: string;
  output: string;
  errorTail: string;
  code: number | null;
  timedOut: boolean;
  seconds: number;
}

/** The process group of the benchmark running now; Ctrl-C stops it too (it is not in the terminal's group). */
let runningGroup: number | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    signalGroup(runningGroup, signal);
    process.exit(130);
  });
}

function run(file: string): Promise<Outcome> {
  const name = file.replace(/\.js$/, "");
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // Its own process group, so that a benchmark that overstays is stopped with everything it started.
    const child = spawn(process.execPath, [join(distDir, file)], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    runningGroup = child.pid;
    let output = "";
    let errors = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errors = (errors + chunk.toString("utf8")).slice(-20_000);
      process.stderr.write(chunk);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      process.stderr.write(`${name} still running after ${TIMEOUT_MS / 60_000} min; stopping it\n`);
      signalGroup(child.pid, "SIGTERM");
      setTimeout(() => signalGroup(child.pid, "SIGKILL"), 30_000).unref();
    }, TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      runningGroup = undefined;
      const errorTail = errors.trimEnd().split("\n").slice(-20).join("\n");
      resolve({ name, output: output.trim(), errorTail, code, timedOut, seconds: (Date.now() - started) / 1000 });
    });
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {}
}

function gitRevision(): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: benchDir, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: benchDir, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
    return dirty ? `${commit} with uncommitted changes` : commit;
  } catch {
    return "unknown";
  }
}

/** The lines a benchmark marks as its results: bullets with a bold figure or a ratio. */
function headlines(output: string): string[] {
  return output.split("\n").filter((line) => line.startsWith("- ") && (line.includes("**") || line.includes("×")));
}

/** A benchmark's output as it printed it: markdown as is, anything else as a preformatted block under its name. */
function section(outcome: Outcome): string[] {
  const lines: string[] = [];
  if (/^## /m.test(outcome.output)) lines.push(outcome.output);
  else lines.push(`## ${outcome.name}`, "", "```text", outcome.output || "(no output)", "```");
  if (outcome.code !== 0) {
    const why = outcome.timedOut ? `was stopped after ${TIMEOUT_MS / 60_000} min` : `exited with code ${outcome.code}`;
    lines.push(
      "",
      `**${outcome.name} ${why}.** The end of what it wrote to stderr:`,
      "",
      "```text",
      outcome.errorTail || "(nothing)",
      "```",
    );
  }
  return lines;
}

const requested = process.argv.slice(2).map((name) => name.replace(/\.js$/, ""));
const available = readdirSync(distDir)
  .filter((file) => file.endsWith(".js") && !HELPERS.has(file))
  // A file left in dist by a benchmark whose source was removed is not run.
  .filter((file) => existsSync(join(benchDir, "src", file.replace(/\.js$/, ".ts"))))
  .sort();
const unknown = requested.filter((name) => !available.includes(`${name}.js`));
if (unknown.length > 0) {
  process.stderr.write(
    `no such benchmark: ${unknown.join(", ")} (there are: ${available.map((file) => file.replace(/\.js$/, "")).join(", ")})\n`,
  );
  process.exit(2);
}
const benchmarks = requested.length > 0 ? available.filter((file) => requested.includes(file.replace(/\.js$/, ""))) : available;

const startedAt = new Date();
const loadBefore = loadavg()[0]!;
const outcomes: Outcome[] = [];
for (const file of benchmarks) {
  process.stderr.write(`running ${file}\n`);
  outcomes.push(await run(file));
}
const loadAfter = loadavg()[0]!;

const cpuModels = [...new Set(cpus().map((cpu) => cpu.model))].join(", ");
const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
const report = [
  "# Benchmarks",
  "",
  "Written by `npm run bench` (bench/src/run-all.ts); every benchmark ran as a child process, one after another, on this machine.",
  "",
  "| | |",
  "|---|---|",
  `| date | ${startedAt.toISOString()} (took ${((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)} min) |`,
  `| CPUs | ${cpus().length} × ${cpuModels} |`,
  `| memory | ${gib(totalmem())} GiB (${gib(freemem())} GiB free at the end) |`,
  `| Node | ${process.version} (${platform()}/${process.arch}, kernel ${release()}) |`,
  `| load average (1 min) | ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after: other work on this machine weighs on every figure |`,
  `| commit | ${gitRevision()} |`,
  `| benchmarks | ${requested.length > 0 ? `only ${requested.join(", ")} (asked for)` : "all"} |`,
  "",
  "## Summary",
  "",
  "| benchmark | result | time |",
  "|---|---|---:|",
  ...outcomes.map(
    (outcome) =>
      `| [${outcome.name}](#${outcome.name}) | ${outcome.code === 0 ? "ok" : outcome.timedOut ? "**stopped: out of time**" : `**failed (exit ${outcome.code})**`} | ${outcome.seconds.toFixed(0)} s |`,
  ),
  "",
  ...outcomes.flatMap((outcome) => {
    const figures = headlines(outcome.output);
    return figures.length > 0 ? [`**${outcome.name}**`, "", ...figures, ""] : [];
  }),
  ...outcomes.flatMap((outcome) => [...section(outcome), ""]),
];
/** The hand-written part of the report as it is now: `# Issue notes` to the end. */
function issueNotes(): string {
  const current = existsSync(reportPath) ? readFileSync(reportPath, "utf8") : "";
  const start = current.search(/^# Issue notes$/m);
  return start < 0 ? "" : `\n${current.slice(start).trimEnd()}\n`;
}

writeFileSync(reportPath, `${report.join("\n").trimEnd()}\n${issueNotes()}`);
process.stderr.write(`wrote ${reportPath}\n`);
process.exitCode = outcomes.every((outcome) => outcome.code === 0) ? 0 : 1;
