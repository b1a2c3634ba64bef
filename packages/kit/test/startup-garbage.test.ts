import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);

describe("the start-up garbage collection (collectStartupGarbage)", () => {
  const fixture = fileURLToPath(new URL("./fixtures/startup-garbage-process.mjs", import.meta.url));
  const kitDir = fileURLToPath(new URL("..", import.meta.url));

  it("makes one major collection of the garbage that loading left (through the in-process inspector: no V8 flag changed), and leaves no `gc` on the process's global", async () => {
    const { stdout } = await run(process.execPath, [fixture], { cwd: kitDir, timeout: 30_000 });
    const { collection, majorCollections, gcExposed } = JSON.parse(stdout.trim().split("\n").at(-1)!);
    // The fixture dropped about 800,000 objects: a full collection frees most of what the heap held.
    expect(collection.usedAfter).to.be.lessThan(collection.usedBefore / 2);
    expect(majorCollections).to.be.greaterThan(0);
    expect(gcExposed).to.equal("undefined");
  });
});
