import { DOCEX_NODE_OPTIONS, SERVICE_NAMES, SERVICE_PORTS, type ServiceName } from "@docex/kit/config";

/** Where a stack listens and what it owns: ports at `portOffset`; in a namespace, databases and a stream of its own. */
export interface StackLayout {
  portOffset: number;
  /** `<namespace>_<service>` databases and the stream `<NAMESPACE>`; unset, the production names. */
  namespace?: string;
  /** Processes per service (STACK_REPLICAS); a service not named runs one. */
  replicas?: Partial<Record<ServiceName, number>>;
}

/**
 * The most processes of one service a stack runs. Replica `index` listens `index × 10` above the first: the ports of
 * a stack at offset 0 (8080–8090, 9081–9090) leave 8091–8179 and 9091–9180 free, so replicas stay within the 100
 * ports a stack's offset owns and never meet another stack's.
 */
export const MAX_REPLICAS = 5;
const REPLICA_PORT_STEP = 10;

/** The port of a process; replica `index` (0 is the first) of a service listens `index × 10` above the first. */
export function stackPort(name: ServiceName | "gateway", kind: "http" | "grpc", layout: StackLayout, index = 0): number {
  return SERVICE_PORTS[name][kind] + layout.portOffset + index * REPLICA_PORT_STEP;
}

export function replicasOf(name: ServiceName, layout: StackLayout): number {
  return layout.replicas?.[name] ?? 1;
}

/**
 * STACK_REPLICAS, e.g. `document=2,webhook=2`: how many processes of each named service the stack runs. Each
 * caller's channel is given every replica's gRPC address and spreads its calls over them (round robin), as over
 * the pods behind a headless Service in Kubernetes.
 */
export function parseStackReplicas(text: string | undefined): Partial<Record<ServiceName, number>> {
  const replicas: Partial<Record<ServiceName, number>> = {};
  for (const part of (text ?? "").split(",").filter((item) => item.trim() !== "")) {
    const [name, count] = part.split("=").map((item) => item.trim());
    if (!SERVICE_NAMES.includes(name as ServiceName) || !/^[1-9]$/.test(count ?? "") || Number(count) > MAX_REPLICAS) {
      throw new Error(`STACK_REPLICAS: "${part}" is not <service>=<1..${MAX_REPLICAS}> (services: ${SERVICE_NAMES.join(", ")})`);
    }
    replicas[name as ServiceName] = Number(count);
  }
  return replicas;
}

/** Every port the stack's processes listen on, replicas included. */
export function stackPorts(layout: StackLayout): number[] {
  const ports = [stackPort("gateway", "http", layout)];
  for (const name of SERVICE_NAMES) {
    for (let index = 0; index < replicasOf(name, layout); index++) {
      ports.push(stackPort(name, "http", layout, index), stackPort(name, "grpc", layout, index));
      if (name === "intake") ports.push(intakeSmtpPort(layout, index));
    }
  }
  return ports;
}

/** A service's gRPC target: its one address, or an `ipv4:` list of its replicas' for the round-robin balancer. */
function grpcTarget(name: ServiceName, layout: StackLayout): string {
  const addresses = Array.from({ length: replicasOf(name, layout) }, (_, index) => `127.0.0.1:${stackPort(name, "grpc", layout, index)}`);
  return addresses.length === 1 ? addresses[0]! : `ipv4:${addresses.join(",")}`;
}

/**
 * What every process of the stack is told: where each service answers (HTTP and gRPC), where auth publishes its
 * keys, and, in a namespace, the stream and subject prefix. `npm start` and the fault suite's stack both use it,
 * so that the suite runs the services exactly as a developer's stack does.
 */
export function sharedStackEnvironment(layout: StackLayout): Record<string, string> {
  const env: Record<string, string> = {
    NODE_OPTIONS: [DOCEX_NODE_OPTIONS, process.env.NODE_OPTIONS].filter(Boolean).join(" "),
    AUTH_JWKS_URL: `http://127.0.0.1:${stackPort("auth", "http", layout)}/api/v2/auth/.well-known/jwks.json`,
  };
  for (const name of SERVICE_NAMES) {
    env[`${name.toUpperCase()}_GRPC_ADDR`] = grpcTarget(name, layout);
    env[`${name.toUpperCase()}_URL`] = `http://127.0.0.1:${stackPort(name, "http", layout)}`;
  }
  if (layout.namespace) Object.assign(env, { NATS_STREAM: layout.namespace.toUpperCase(), NATS_SUBJECT_PREFIX: layout.namespace });
  return env;
}

/** The intake's SMTP port (API.md: 2526 at offset 0); replica `index` listens `index × 10` above it. */
export const INTAKE_SMTP_PORT = 2526;

export function intakeSmtpPort(layout: StackLayout, index = 0): number {
  return INTAKE_SMTP_PORT + layout.portOffset + index * REPLICA_PORT_STEP;
}

/** What one process of a service (replica `index`) is told on top: its ports and, in a namespace, its database. */
export function serviceEnvironment(name: ServiceName, layout: StackLayout, index = 0): Record<string, string> {
  return {
    PORT: String(stackPort(name, "http", layout, index)),
    GRPC_PORT: String(stackPort(name, "grpc", layout, index)),
    // Mail to a local stack comes from a developer's machine, not the internet: no DNS lookups for SPF, DKIM and DMARC
    // unless asked for (their verdicts are then `none`).
    ...(name === "intake"
      ? { INTAKE_SMTP_PORT: String(intakeSmtpPort(layout, index)), INTAKE_MAIL_AUTH: process.env.INTAKE_MAIL_AUTH ?? "off" }
      : {}),
    ...(layout.namespace ? { DATABASE_NAME: `${layout.namespace}_${name}` } : {}),
  };
}
