import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);

interface Outcome {
  collections: Array<{ heapBefore: number; heapAfter: number; durationMs: number; majorCollectionsBefore: number }>;
  majorCollections: number;
  gcExposed: string;
}

describe("the start-up garbage collection (collectStartupGarbageWhenIdle)", () => {
  const fixture = fileURLToPath(new URL("./fixtures/startup-garbage-process.mjs", import.meta.url));
  const kitDir = fileURLToPath(new URL("..", import.meta.url));

  async function started(mode: "idle" | "busy" | "cancelled"): Promise<Outcome> {
    const { stdout } = await run(process.execPath, [fixture], { cwd: kitDir, env: { ...process.env, MODE: mode }, timeout: 30_000 });
    return JSON.parse(stdout.trim().split("\n").at(-1)!);
  }

  it("collects once an interval passed idle: a major collection that shrinks the heap, and no `gc` left on the global", async () => {
    const { collections, majorCollections, gcExposed } = await started("idle");
    expect(collections).to.have.length(1);
    const [collection] = collections;
    expect(collection!.heapAfter).to.be.lessThan(collection!.heapBefore);
    expect(majorCollections).to.be.greaterThan(collection!.majorCollectionsBefore);
    expect(gcExposed).to.equal("undefined");
  });

  it("does not collect while the event loop is busy through every look", async () => {
    expect((await started("busy")).collections).to.deep.equal([]);
  });

  it("does not collect once cancelled (a signal came first)", async () => {
    expect((await started("cancelled")).collections).to.deep.equal([]);
  });
});
