import type { Reporter, TestModule } from "vitest/node";

/**
 * After vitest's own report, the summary lines mocha prints ("  21 passing"), which .ci/run adds up over every
 * workspace's tests for the one closing line CI reads; without them this package's tests would not be counted.
 */
export default class MochaSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passing: 0, failing: 0, pending: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passing++;
        else if (state === "failed") counts.failing++;
        else counts.pending++;
      }
    }
    const lines = [`  ${counts.passing} passing`];
    if (counts.failing) lines.push(`  ${counts.failing} failing`);
    if (counts.pending) lines.push(`  ${counts.pending} pending`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
