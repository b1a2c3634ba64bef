/**
 * Runs every benchmark in bench/dist (each `*.js` but this one) as a child process, one
 * after another, and writes what each printed to bench/REPORT.md with the machine it ran on.
 */
import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const distDir = dirname(fileURLToPath(import.meta.url));
const reportPath = join(distDir, "..", "REPORT.md");
const self = basename(fileURLToPath(import.meta.url));

function run(file: string): Promise<{ output: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(distDir, file)], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      process.stdout.write(chunk);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ output, code }));
  });
}

const benchmarks = readdirSync(distDir)
  .filter((file) => file.endsWith(".js") && file !== self)
  .sort();
const cpu = cpus()[0]?.model ?? "unknown CPU";
const sections = [
  "# Benchmarks",
  "",
  `Run ${new Date().toISOString()} on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, Node ${process.version} (${process.platform}/${process.arch}).`,
  "",
];
let failed = false;
for (const file of benchmarks) {
  process.stderr.write(`running ${file}\n`);
  const { output, code } = await run(file);
  sections.push(output.trim(), "");
  if (code !== 0) {
    failed = true;
    sections.push(`**${file} exited with code ${code}.**`, "");
  }
}
writeFileSync(reportPath, `${sections.join("\n").trimEnd()}\n`);
process.stderr.write(`wrote ${reportPath}\n`);
process.exitCode = failed ? 1 : 0;
