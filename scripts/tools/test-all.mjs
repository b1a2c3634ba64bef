#!/usr/bin/env node
// `npm test`: build, type-check the tests, then every workspace's tests through turbo — in parallel where they
// can share the machine, then alone those that cannot — and the wall time of the whole at the end.
//
// Parallel is safe for the in-process suites: each mocha process has its own databases (uniqueDatabaseName), its
// own JetStream stream and subject prefix (testEventNamespace), its own gRPC CA, and ports the kernel hands out.
// @docex/scripts runs alone: its stack tests start the whole stack (every service and the gateway as child
// processes) on fixed ports, and take both cores while they do.
//
// TEST_CONCURRENCY sets how many workspaces test at once (2 by default: the machine has 2 cores, and the suites
// spend most of their time waiting on Postgres, NATS and timers).
import { spawnSync } from "node:child_process";

const ALONE = ["@docex/scripts"];
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const started = performance.now();

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit" });
  return result.status ?? 1;
}

// Grouped: each workspace's output in one piece once it finishes, every line still prefixed with its name, so a
// parallel run reads as a sequential one and CI's count of mocha's summary lines is unchanged.
// --continue: a failing workspace does not stop the others, so one run shows every failure.
const turboTest = (args) => run("npx", ["turbo", "run", "test", "--log-order=grouped", "--continue", ...args]);

let status = run("npx", ["turbo", "run", "build", "--output-logs=errors-only"]);
if (status === 0) status = run("npx", ["tsc", "-p", "tsconfig.tests.json"]);
if (status === 0) {
  const parallel = turboTest([`--concurrency=${concurrency}`, ...ALONE.map((name) => `--filter=!${name}`)]);
  const alone = turboTest(["--concurrency=1", ...ALONE.map((name) => `--filter=${name}`)]);
  status = parallel || alone;
}

console.log(`npm test: ${Math.round((performance.now() - started) / 1000)} s`);
process.exit(status);
