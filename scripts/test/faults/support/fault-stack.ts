import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES, SERVICE_PORTS, type ServiceName } from "@docex/kit/config";
import { dropDatabase, testDatabaseServerUrl, testGrpcTlsDir } from "@docex/testkit";
import {
  replicasOf,
  type StackLayout,
  serviceEnvironment,
  sharedStackEnvironment,
  stackPort,
  stackPorts,
} from "../../../src/stack-environment.js";
import { freePortOffset, offsetsBetween } from "../../support/ports.js";
import type { Answer } from "../../support/stack.js";
import type { NatsServerProcess } from "./nats-server-process.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const TRACING_REGISTER = import.meta.resolve("@docex/kit/tracing/register");

/** A process of the stack: the gateway, a service, or a further replica of one (`document-2`). */
export type StackProcessName = ServiceName | "gateway" | `${ServiceName}-${number}`;
export const STACK_PROCESS_NAMES: readonly StackProcessName[] = [...SERVICE_NAMES, "gateway"];

interface Member {
  name: StackProcessName;
  entry: string;
  env: NodeJS.ProcessEnv;
  httpPort: number;
  child: ChildProcess;
  /** Set while the suite stops or kills it on purpose, so that the exit is not reported as a crash. */
  expectingExit: boolean;
  log: string[];
}

export interface FaultStackOptions {
  /** The suite's nats-server: its address, and the namespace and users it was configured for. */
  nats: Pick<NatsServerProcess, "url" | "namespace" | "credentials">;
  /** Settings for every process, on top of those `npm start` sets (e.g. the webhook service's retry schedule). */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Processes per service (as STACK_REPLICAS for `npm start`); the second of document is `document-2`. */
  replicas?: StackLayout["replicas"];
}

const LOG_LINES_KEPT = 200;
/**
 * Where a fault stack's ports may be: away from `npm start` (offset 0) and from the test stacks (19,000 to 21,000),
 * and below the kernel's ephemeral range (32,768 and up), where outgoing connections take ports at random.
 */
const FAULT_STACK_OFFSETS = [...offsetsBetween(10_000, 18_800), ...offsetsBetween(21_200, 23_500)];

/**
 * The stack as `npm start` runs it — each service and the gateway a child process with the environment that
 * scripts/src/start.ts composes (ports at an offset, databases `<namespace>_<service>`, stream `<NAMESPACE>`) —
 * but with each process a child of the test, so that one can be killed and started again. (start.ts stops the
 * whole stack when one of its processes exits, which is right for a developer and wrong for a kill test.)
 */
export class FaultStack {
  readonly unexpectedExits: string[] = [];
  private readonly members = new Map<StackProcessName, Member>();

  private constructor(
    readonly namespace: string,
    readonly portOffset: number,
    readonly owner: { email: string; password: string },
    private readonly sharedEnv: NodeJS.ProcessEnv,
  ) {}

  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const namespace = options.nats.namespace;
    const owner = { email: `owner-${namespace}@example.test`, password: "correct horse battery staple" };
    const offset = await freePortOffset(FAULT_STACK_OFFSETS, stackPorts({ portOffset: 0, replicas: options.replicas }));
    const layout: StackLayout = { portOffset: offset, namespace, replicas: options.replicas };
    const portOf = (name: ServiceName | "gateway", kind: "http" | "grpc", index = 0) => stackPort(name, kind, layout, index);
    const shared: NodeJS.ProcessEnv = {
      ...process.env,
      AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      DATABASE_URL: testDatabaseServerUrl(),
      NATS_URL: options.nats.url,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      ...sharedStackEnvironment(layout),
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? "warn",
      BOOTSTRAP_OWNER_EMAIL: owner.email,
      BOOTSTRAP_OWNER_PASSWORD: owner.password,
      GATEWAY_RATE_LIMIT_PER_MINUTE: "0",
      // Mutual TLS between the services, with this test process's CA (as npm start does with its own).
      GRPC_TLS_DIR: testGrpcTlsDir(),
      ...options.env,
    };
    const stack = new FaultStack(namespace, offset, owner, shared);
    try {
      for (const name of SERVICE_NAMES) {
        for (let index = 0; index < replicasOf(name, layout); index++) {
          const member: StackProcessName = index === 0 ? name : `${name}-${index + 1}`;
          stack.launch(member, `services/${name}/dist/main.js`, portOf(name, "http", index), {
            ...serviceEnvironment(name, layout, index),
            ...options.nats.credentials[name],
          });
        }
      }
      stack.launch("gateway", "gateway/dist/main.js", portOf("gateway", "http"), { GATEWAY_PORT: String(portOf("gateway", "http")) });
      await stack.waitUntilReady(options.readyTimeoutMs ?? 150_000);
    } catch (error) {
      await stack.dispose();
      throw error;
    }
    return stack;
  }

  get gateway(): string {
    return `http://127.0.0.1:${SERVICE_PORTS.gateway.http + this.portOffset}`;
  }

  /** Every process of the stack, replicas included. */
  get processNames(): StackProcessName[] {
    return [...this.members.keys()];
  }

  /** The databases of this stack, `<namespace>_<service>`. */
  get databases(): string[] {
    return SERVICE_NAMES.map((name) => `${this.namespace}_${name}`);
  }

  processUrl(name: StackProcessName): string {
    return `http://127.0.0.1:${this.members.get(name)!.httpPort}`;
  }

  async call(method: string, apiPath: string, options: { token?: string; body?: unknown; timeoutMs?: number } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${this.gateway}/api/v2${apiPath}`, {
      method,
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async login(): Promise<string> {
    const answer = await this.call("POST", "/auth/login", { body: this.owner });
    if (answer.status !== 200) throw new Error(`login of the bootstrap owner: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data.access_token;
  }

  /** Sends `signal` to one process and waits for it to exit. */
  async kill(name: StackProcessName, signal: NodeJS.Signals = "SIGKILL", timeoutMs = 20_000): Promise<void> {
    const member = this.members.get(name)!;
    if (!isAlive(member.child)) return;
    member.expectingExit = true;
    const exited = new Promise<void>((resolve) => member.child.once("exit", () => resolve()));
    member.child.kill(signal);
    const force = setTimeout(() => member.child.kill("SIGKILL"), timeoutMs);
    await exited;
    clearTimeout(force);
  }

  /** Starts a process that was killed again, with the same environment and ports. */
  restart(name: StackProcessName): void {
    const member = this.members.get(name)!;
    if (isAlive(member.child)) throw new Error(`${name} is still running`);
    this.launch(name, member.entry, member.httpPort, member.env);
  }

  /** Each process's `/readyz`: true when it answered 200. */
  async readiness(): Promise<Record<StackProcessName, boolean>> {
    const answers = await Promise.all(
      this.processNames.map(async (name) => {
        try {
          // Longer than the kit's own 2 s limit per check, so that a slow check answers 503 rather than nothing.
          const response = await fetch(`${this.processUrl(name)}/readyz`, { signal: AbortSignal.timeout(3_000) });
          await response.body?.cancel();
          return [name, response.status === 200] as const;
        } catch {
          return [name, false] as const;
        }
      }),
    );
    return Object.fromEntries(answers) as Record<StackProcessName, boolean>;
  }

  /** What the processes that are not ready say on `/readyz` (status and body), for failure messages. */
  async unreadyDetail(): Promise<string> {
    const ready = await this.readiness();
    const details = await Promise.all(
      this.processNames
        .filter((name) => !ready[name])
        .map(async (name) => {
          try {
            const response = await fetch(`${this.processUrl(name)}/readyz`, { signal: AbortSignal.timeout(5_000) });
            return `${name}: ${response.status} ${await response.text()}`;
          } catch (error) {
            return `${name}: ${String(error)}`;
          }
        }),
    );
    return details.join("; ");
  }

  /** Resolves once every process answers `/readyz` with 200; the milliseconds that took. */
  async waitUntilReady(timeoutMs: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const ready = await this.readiness();
      const pending = this.processNames.filter((name) => !ready[name]);
      if (pending.length === 0) return Date.now() - started;
      const dead = pending.filter((name) => !isAlive(this.members.get(name)!.child));
      if (dead.length > 0 || Date.now() - started > timeoutMs) {
        const why = dead.length > 0 ? `exited: ${dead.join(", ")}` : `not ready within ${timeoutMs} ms: ${pending.join(", ")}`;
        throw new Error(`${why}\n${pending.map((name) => this.logTail(name, 15)).join("\n")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  logTail(name: StackProcessName, lines = 30): string {
    const log = this.members.get(name)?.log ?? [];
    return log
      .slice(-lines)
      .map((line) => `[${name}] ${line}`)
      .join("\n");
  }

  /** For an `exit` handler: no waiting possible there. */
  killNow(): void {
    for (const member of this.members.values()) {
      member.expectingExit = true;
      if (isAlive(member.child)) member.child.kill("SIGKILL");
    }
  }

  /** Stops every process (SIGTERM, then SIGKILL) and drops the stack's databases. */
  async dispose(): Promise<void> {
    await Promise.all(this.processNames.map((name) => this.kill(name, "SIGTERM", 10_000)));
    await Promise.all(this.databases.map((name) => dropDatabase(name).catch(() => undefined)));
  }

  private launch(name: StackProcessName, entry: string, httpPort: number, env: NodeJS.ProcessEnv): void {
    const fullEnv = { ...this.sharedEnv, ...env };
    // As `npm start` runs them: the tracing register first (it does nothing unless OTEL_* turns tracing on).
    const child = spawn(process.execPath, ["--import", TRACING_REGISTER, path.join(root, entry)], {
      env: fullEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const member: Member = { name, entry, env, httpPort, child, expectingExit: false, log: this.members.get(name)?.log ?? [] };
    let partial = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on("data", (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split("\n");
        partial = lines.pop() ?? "";
        member.log.push(...lines);
        if (member.log.length > LOG_LINES_KEPT) member.log.splice(0, member.log.length - LOG_LINES_KEPT);
      });
    }
    child.once("exit", (code, signal) => {
      if (!member.expectingExit) this.unexpectedExits.push(`${name} exited (${signal ?? code})`);
    });
    this.members.set(name, member);
  }
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}
