import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { NewcomerStack } from "./support/newcomer-stack.js";
import { freePortOffset } from "./support/ports.js";
import { removeNamespace, TEST_STACK_OFFSETS } from "./support/stack.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface Ran {
  code: number | null;
  output: string;
}

/** Runs a bash script in its own process group, which is killed afterwards with whatever it left running. */
function bash(script: string, options: { cwd: string; env?: Record<string, string>; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], {
      cwd: options.cwd,
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    };
    const timer = setTimeout(killGroup, options.timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, output });
    });
  });
}

/** The fenced `sh` blocks of the README's quick start, but the one that starts the stack: the test starts it. */
function quickStartCommands(): string {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no ## Quick start section");
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  return blocks.filter((block) => !/\bnpm start\b/.test(block)).join("\n");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A second clone of the repository as built: the tree without `.git`, `.data` and `node_modules`, which is linked. */
function secondCheckout(): string {
  const copy = mkdtempSync(path.join(tmpdir(), "docex-second-checkout-"));
  const skipped = new Set([".git", ".data", "node_modules", ".turbo"].map((name) => path.join(root, name)));
  cpSync(root, copy, { recursive: true, filter: (source) => !skipped.has(source) && !source.endsWith(`${path.sep}.turbo`) });
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
  return copy;
}

describe("the first hour: npm start as a newcomer runs it (no SMTP_URL, no owner, no secrets given)", function () {
  this.timeout(240_000);
  const namespace = `docex_e2e_${randomBytes(3).toString("hex")}`;
  let portOffset = 0;
  let stack: NewcomerStack | undefined;
  let copy: string | undefined;
  let curlLine = "";

  before(async () => {
    portOffset = await freePortOffset(TEST_STACK_OFFSETS);
    stack = NewcomerStack.start(root, namespace, portOffset);
    await stack.ready();
  });

  after(async () => {
    await stack?.stop();
    await removeNamespace(namespace);
    if (copy) rmSync(copy, { recursive: true, force: true });
    rmSync(path.join(root, "receiver.log"), { force: true });
  });

  it("prints the local owner of the organization bootstrap, and its curl line signs in as printed", async () => {
    expect(stack!.output).to.match(/sign in as owner@docex\.test, password \S+/);
    expect(stack!.output).to.match(/owner of "bootstrap"/);
    curlLine = /^\[stack\] {3}(curl .*)$/m.exec(stack!.output)?.[1] ?? "";
    expect(curlLine).to.include(`${stack!.gateway}/api/v2/auth/login`);
    const signedIn = await bash(curlLine, { cwd: root, timeoutMs: 20_000 });
    expect(JSON.parse(signedIn.output).data.access_token, signedIn.output).to.be.a("string");
  });

  it("catches every mail: a password reset is printed in the stack log with its link, and listed on the mail page", async () => {
    const reset = await fetch(`${stack!.gateway}/api/v2/auth/password-reset`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@docex.test" }),
    });
    expect(reset.status).to.equal(202);
    await eventually(
      () => /\[mail\] +to owner@docex\.test: "Reset your docex password" link: http\S+token=/.test(stack!.output) || undefined,
      10_000,
    );
    const mails = (await (await fetch(`${stack!.mailPage}/mails.json`)).json()) as Array<{ to: string[]; subject: string; text: string }>;
    expect(mails.map((mail) => mail.subject)).to.include("Reset your docex password");
    expect(await (await fetch(stack!.mailPage)).text()).to.include("Reset your docex password");
  });

  it("runs the README's quick start as written: sign in, workspace and queue, PDF upload, fields, a correction, a signed webhook, the API page", async () => {
    const ran = await bash(`set -euo pipefail\n${quickStartCommands()}`, {
      cwd: root,
      env: { DOCEX_URL: stack!.gateway, RECEIVER_PORT: String(await freePort()) },
      timeoutMs: 150_000,
    });
    expect(ran.code, ran.output).to.equal(0);
    expect(ran.output).to.match(/^invoice_id: FV\d+$/m);
    expect(ran.output).to.match(/^total_due: \S+/m);
    expect(ran.output).to.match(/^FV20250107-CORRECTED$/m);
    expect(ran.output).to.match(/^ready_to_export$/m);
    const received = ran.output
      .split("\n")
      .filter((line) => line.includes('"document_status_changed"'))
      .map((line) => JSON.parse(line) as { status: string });
    expect(received.map((event) => event.status)).to.include("ready_to_export");
    expect(ran.output).to.include("<title>docex API reference</title>");
  });

  it("starts from a second checkout on the same Postgres and NATS, opens the data the first one made, and signs the same owner in", async () => {
    expect(await stack!.stop()).to.equal(0);
    copy = secondCheckout();
    stack = NewcomerStack.start(copy, namespace, portOffset);
    await stack.ready();
    expect(/^\[stack\] {3}(curl .*)$/m.exec(stack.output)?.[1]).to.equal(curlLine);
  });

  it("given a key that does not open the data, says what to do; `npm run reset -- --yes` deletes the stack's databases and it starts afresh", async () => {
    const whileRunning = await bash("node scripts/dist/reset.js --yes", {
      cwd: copy!,
      env: { STACK_NAMESPACE: namespace },
      timeoutMs: 60_000,
    });
    expect(whileRunning.code, whileRunning.output).to.equal(1);
    expect(whileRunning.output).to.include("the stack is running");
    expect(await stack!.stop()).to.equal(0);
    const otherKey = { AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") };
    stack = NewcomerStack.start(copy!, namespace, portOffset, otherKey);
    expect(
      await Promise.race([
        stack.exited,
        stack.ready().then(
          () => "ready",
          () => "not ready",
        ),
      ]),
      stack.output,
    ).to.equal(1);
    expect(stack.output).to.include("auth cannot open what is stored on this Postgres server");
    expect(stack.output).to.include("npm run reset");

    const reset = await bash("node scripts/dist/reset.js --yes", { cwd: copy!, env: { STACK_NAMESPACE: namespace }, timeoutMs: 60_000 });
    expect(reset.code, reset.output).to.equal(0);
    expect(reset.output).to.include(`${namespace}_auth`);

    stack = NewcomerStack.start(copy!, namespace, portOffset, otherKey);
    await stack.ready();
  });
});
