import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A nats-server of a test's own on a free port of 127.0.0.1, with JetStream in a temporary store: it can be
 * stopped and started again on the same port and store, or started with options the shared NATS lacks
 * (`--auth`), without touching the NATS that colleagues' runs share.
 */
export class NatsServerProcess {
  private child: ChildProcess | undefined;
  private output = "";

  private constructor(
    readonly port: number,
    readonly storeDir: string,
    private readonly extraArgs: string[],
  ) {}

  static async start(extraArgs: string[] = []): Promise<NatsServerProcess> {
    const server = new NatsServerProcess(await freePort(), mkdtempSync(path.join(tmpdir(), "docex-kit-nats-")), extraArgs);
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
    const args = ["-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", this.storeDir, ...this.extraArgs];
    const child = spawn("nats-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => this.keep(chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.once("error", (error) => reject(new Error(`nats-server could not be started (is it on PATH?): ${error.message}`)));
      child.once("spawn", resolve);
    });
    this.child = child;
    const deadline = Date.now() + timeoutMs;
    while (!(await portAnswers(this.port))) {
      if (!this.running || Date.now() > deadline)
        throw new Error(`nats-server did not listen on ${this.port} within ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
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

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }

  private keep(text: string): void {
    this.output = (this.output + text).slice(-20_000);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port, timeout: 500 });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}
