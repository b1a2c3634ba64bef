import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NATS_SERVICE_USERS, type NatsServiceUser, natsAuthorizationConfig } from "@docex/kit/bus";
import { freePort } from "@docex/testkit";
import { portAnswers } from "../../../src/infrastructure.js";

/**
 * A nats-server of the fault suite's own, with JetStream in a temporary store, so that it can be stopped and
 * started again on the same port and store without touching the NATS that colleagues' runs share. As `npm start`'s,
 * it has a user per service (natsAuthorizationConfig) for the stack's namespace, so the suite's services run with
 * the permissions they have in production.
 */
export class NatsServerProcess {
  private child: ChildProcess | undefined;
  private output = "";

  private constructor(
    readonly port: number,
    readonly storeDir: string,
    /** The fault stack's namespace: its databases, stream and subjects; the users' permissions are for it. */
    readonly namespace: string,
    /** Per service, the NATS_USER and NATS_PASSWORD it connects with. */
    readonly credentials: Record<NatsServiceUser, Record<string, string>>,
  ) {}

  static async start(): Promise<NatsServerProcess> {
    const storeDir = mkdtempSync(path.join(tmpdir(), "docex-faults-nats-"));
    const namespace = `docex_fault_${randomBytes(3).toString("hex")}`;
    const passwords = Object.fromEntries(
      NATS_SERVICE_USERS.map((user) => [user, { value: randomBytes(24).toString("base64url") }]),
    ) as Record<NatsServiceUser, { value: string }>;
    writeFileSync(
      path.join(storeDir, "nats.conf"),
      natsAuthorizationConfig({ namespace: { stream: namespace.toUpperCase(), subjectPrefix: namespace }, passwords }),
      { mode: 0o600 },
    );
    const credentials = {} as Record<NatsServiceUser, Record<string, string>>;
    for (const user of NATS_SERVICE_USERS) credentials[user] = { NATS_USER: user, NATS_PASSWORD: passwords[user].value };
    const server = new NatsServerProcess(await freePort(), storeDir, namespace, credentials);
    await server.start();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the server (again) on its port and store; resolves once it accepts connections. */
  async start(timeoutMs = 15_000): Promise<void> {
    if (this.running) return;
    const args = ["-c", path.join(this.storeDir, "nats.conf"), "-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", this.storeDir];
    const child = spawn("nats-server", args, {
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => this.keep(chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.once("error", (error) => reject(new Error(`nats-server could not be started (is it on PATH?): ${error.message}`)));
      child.once("spawn", resolve);
    });
    this.child = child;
    const deadline = Date.now() + timeoutMs;
    while (!(await portAnswers("127.0.0.1", this.port, 500))) {
      if (!this.running || Date.now() > deadline) {
        throw new Error(`nats-server did not listen on ${this.port} within ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGTERM (a clean shutdown that keeps the store), SIGKILL if it is still there after `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const force = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    await exited;
    clearTimeout(force);
  }

  /** For an `exit` handler: no waiting possible there. */
  killNow(): void {
    if (this.running) this.child?.kill("SIGKILL");
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }

  logTail(characters = 3_000): string {
    return this.output.slice(-characters);
  }

  private keep(text: string): void {
    this.output = (this.output + text).slice(-20_000);
  }
}
