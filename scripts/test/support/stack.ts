import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES, SERVICE_PORTS } from "@docex/kit/config";
import { dropDatabase, SmtpSink } from "@docex/testkit";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { freePortOffset, offsetsBetween } from "./ports.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/**
 * Where a test stack's ports may be: away from a stack a developer may be running (offset 0), from the fault stacks
 * and from the kernel's ephemeral ports. Each test stack takes a free offset among them, so that the tests of two
 * checkouts can run at once on one machine; STACK_TEST_PORT_OFFSET fixes it.
 */
export const TEST_STACK_OFFSETS = offsetsBetween(19_000, 21_000);

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  body: any;
}

/**
 * The whole stack as `npm start` runs it (child processes, real Postgres and NATS), in a
 * namespace of its own: databases `<namespace>_<service>` and its own JetStream stream.
 * One per test process, shared by the suites that exercise it through the gateway.
 */
export class Stack {
  output = "";
  readonly exited: Promise<number | null>;

  private constructor(
    readonly process: ChildProcess,
    readonly namespace: string,
    readonly mail: SmtpSink,
    readonly owner: { email: string; password: string },
    readonly portOffset: number,
  ) {
    process.stdout!.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    process.stderr!.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => process.once("exit", (code) => resolve(code)));
  }

  /** `env` adds to the stack's environment (the tracing suite points OTEL_EXPORTER_OTLP_ENDPOINT at its receiver). */
  static async start(options: { env?: Record<string, string> } = {}): Promise<Stack> {
    const namespace = `docex_e2e_${randomBytes(3).toString("hex")}`;
    const portOffset = process.env.STACK_TEST_PORT_OFFSET
      ? Number(process.env.STACK_TEST_PORT_OFFSET)
      : await freePortOffset(TEST_STACK_OFFSETS);
    const mail = await SmtpSink.start();
    const owner = { email: `owner-${namespace}@example.test`, password: "correct horse battery staple" };
    const child = spawn(process.execPath, [path.join(root, "scripts/dist/start.js")], {
      env: {
        ...process.env,
        STACK_PORT_OFFSET: String(portOffset),
        STACK_NAMESPACE: namespace,
        LOG_LEVEL: "warn",
        SMTP_URL: mail.url,
        BOOTSTRAP_OWNER_EMAIL: owner.email,
        BOOTSTRAP_OWNER_PASSWORD: owner.password,
        // The sweeps send thousands of requests from one address.
        GATEWAY_RATE_LIMIT_PER_MINUTE: "0",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so that the services can be killed with it if it will not stop.
      detached: true,
    });
    const stack = new Stack(child, namespace, mail, owner, portOffset);
    const deadline = Date.now() + 150_000;
    while (!stack.output.includes("docex is ready")) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await stack.dispose();
        throw new Error(`the stack did not become ready:\n${stack.output.slice(-4000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return stack;
  }

  get gateway(): string {
    return `http://127.0.0.1:${SERVICE_PORTS.gateway.http + this.portOffset}`;
  }

  serviceUrl(name: (typeof SERVICE_NAMES)[number]): string {
    return `http://127.0.0.1:${SERVICE_PORTS[name].http + this.portOffset}`;
  }

  async call(
    method: string,
    apiPath: string,
    options: { token?: string; body?: unknown; raw?: string | Uint8Array; contentType?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
    const response = await fetch(`${this.gateway}/api/v2${apiPath}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async login(email: string, password: string): Promise<{ access_token: string; refresh_token: string }> {
    const answer = await this.call("POST", "/auth/login", { body: { email, password } });
    if (answer.status !== 200) throw new Error(`login of ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  /** SIGINT, as Ctrl-C would; resolves with the exit code, or "timeout". */
  async interrupt(timeoutMs = 40_000): Promise<number | null | "timeout"> {
    this.process.kill("SIGINT");
    return Promise.race([this.exited, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs))]);
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Kills what is left (the runner and every service it started) and removes the stack's databases and streams. */
  async dispose(): Promise<void> {
    if (this.running) {
      try {
        process.kill(-this.process.pid!, "SIGKILL");
      } catch {
        this.process.kill("SIGKILL");
      }
      await this.exited;
    }
    await removeNamespace(this.namespace);
    await this.mail.stop();
  }
}

/** Removes what a stack in `namespace` leaves on the shared servers: its databases and its streams. */
export async function removeNamespace(namespace: string): Promise<void> {
  await Promise.all(SERVICE_NAMES.map((name) => dropDatabase(`${namespace}_${name}`).catch(() => undefined)));
  const nats = await connect({ servers: process.env.NATS_URL ?? "127.0.0.1:4222" });
  const jsm = await jetstreamManager(nats);
  for (const stream of [namespace.toUpperCase(), `${namespace.toUpperCase()}_DLQ`]) {
    await jsm.streams.delete(stream).catch(() => undefined);
  }
  await nats.close();
}

let shared: Promise<Stack> | undefined;

/** The test process's stack, started on first use; `stopSharedStack` (a root hook) stops and removes it. */
export function sharedStack(): Promise<Stack> {
  shared ??= Stack.start();
  return shared;
}

/**
 * Stops the shared stack as a person would, with Ctrl-C, and fails unless every process stopped
 * cleanly; then removes what the stack left behind.
 */
export async function stopSharedStack(): Promise<void> {
  if (!shared) return;
  const stack = await shared.catch(() => undefined);
  if (!stack) return;
  try {
    const code = stack.running ? await stack.interrupt() : await stack.exited;
    if (code !== 0 || !stack.output.includes("[stack] stopped")) {
      throw new Error(`the stack did not stop cleanly on SIGINT (exit ${code}):\n${stack.output.slice(-3000)}`);
    }
    for (const name of SERVICE_NAMES) {
      const answered = await fetch(`${stack.serviceUrl(name)}/healthz`).then(
        () => true,
        () => false,
      );
      if (answered) throw new Error(`${name} still answers after the stack stopped`);
    }
  } finally {
    await stack.dispose();
  }
}
