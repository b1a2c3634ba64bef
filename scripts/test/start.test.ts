import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES, SERVICE_PORTS } from "@docex/kit";
import { expect } from "chai";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Ports of this test's stack, away from a stack a developer may be running.
const offset = 20_000;

describe("npm start (the local stack runner)", () => {
  let stack: ChildProcess | undefined;
  let output = "";

  after(() => {
    if (stack && stack.exitCode === null) stack.kill("SIGKILL");
  });

  it("brings every service and the gateway to readiness, then stops them all on SIGINT", async () => {
    stack = spawn(process.execPath, [path.join(root, "scripts/dist/start.js")], {
      env: { ...process.env, STACK_PORT_OFFSET: String(offset), LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    stack.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    stack.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => stack!.once("exit", (code) => resolve(code)));

    const deadline = Date.now() + 150_000;
    while (!output.includes("docex is ready")) {
      if (Date.now() > deadline || stack.exitCode !== null) expect.fail(`the stack did not become ready:\n${output.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const gateway = SERVICE_PORTS.gateway.http + offset;
    expect(output).to.include(`http://127.0.0.1:${gateway}/api/v2`);
    for (const name of SERVICE_NAMES) {
      const response = await fetch(`http://127.0.0.1:${SERVICE_PORTS[name].http + offset}/readyz`);
      expect(response.status, name).to.equal(200);
    }
    expect((await fetch(`http://127.0.0.1:${gateway}/readyz`)).status).to.equal(200);

    stack.kill("SIGINT");
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 40_000));
    expect(await Promise.race([exited, timeout])).to.equal(0);
    expect(output).to.include("[stack] stopped");
    for (const name of SERVICE_NAMES) {
      const answered = await fetch(`http://127.0.0.1:${SERVICE_PORTS[name].http + offset}/healthz`).then(
        () => true,
        () => false,
      );
      expect(answered, `${name} still answers after the stop`).to.equal(false);
    }
  });
});
