import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { SERVICE_PORTS } from "@docex/kit/config";

/**
 * `npm start` of a checkout at `root` as a newcomer runs it: no SMTP_URL, no BOOTSTRAP_OWNER_*, no secrets given,
 * so the stack makes its own owner, mail sink and secrets. A namespace and a port offset of its own keep it apart
 * from other stacks on the shared Postgres and NATS.
 */
export class NewcomerStack {
  output = "";
  readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly portOffset: number,
  ) {
    for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static start(root: string, namespace: string, portOffset: number, env: Record<string, string> = {}): NewcomerStack {
    const inherited = { ...process.env };
    for (const name of [
      "SMTP_URL",
      "BOOTSTRAP_OWNER_EMAIL",
      "BOOTSTRAP_OWNER_PASSWORD",
      "AUTH_KEY_ENCRYPTION_KEY",
      "WEBHOOK_KEY_ENCRYPTION_KEY",
    ]) {
      delete inherited[name];
    }
    const child = spawn(process.execPath, [path.join(root, "scripts/dist/start.js")], {
      cwd: root,
      env: { ...inherited, STACK_NAMESPACE: namespace, STACK_PORT_OFFSET: String(portOffset), LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so that the services can be killed with it if it will not stop.
      detached: true,
    });
    return new NewcomerStack(child, portOffset);
  }

  get gateway(): string {
    return `http://127.0.0.1:${SERVICE_PORTS.gateway.http + this.portOffset}`;
  }

  /** Where the stack said its mail can be read. */
  get mailPage(): string {
    const page = /readable at (http:\/\/\S+)/.exec(this.output)?.[1];
    if (!page) throw new Error(`the stack named no mail page:\n${this.output.slice(-2000)}`);
    return page;
  }

  /** Resolves once the stack printed `docex is ready`; fails if it exits first or takes longer than `timeoutMs`. */
  async ready(timeoutMs = 150_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes("docex is ready")) {
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`the stack did not become ready (exit ${this.child.exitCode}):\n${this.output.slice(-4000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Ctrl-C, as a person would stop it; then kills whatever is left of its process group. */
  async stop(timeoutMs = 40_000): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGINT");
    const code = await Promise.race([this.exited, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs))]);
    try {
      process.kill(-this.child.pid!, "SIGKILL");
    } catch {}
    return code === "timeout" ? null : code;
  }
}
