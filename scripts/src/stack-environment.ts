import { SERVICE_NAMES, SERVICE_PORTS, type ServiceName } from "@docex/kit";

/** Where a stack listens and what it owns: ports at `portOffset`; in a namespace, databases and a stream of its own. */
export interface StackLayout {
  portOffset: number;
  /** `<namespace>_<service>` databases and the stream `<NAMESPACE>`; unset, the production names. */
  namespace?: string;
}

export function stackPort(name: ServiceName | "gateway", kind: "http" | "grpc", layout: StackLayout): number {
  return SERVICE_PORTS[name][kind] + layout.portOffset;
}

/**
 * What every process of the stack is told: where each service answers (HTTP and gRPC), where auth publishes its
 * keys, and, in a namespace, the stream and subject prefix. `npm start` and the fault suite's stack both use it,
 * so that the suite runs the services exactly as a developer's stack does.
 */
export function sharedStackEnvironment(layout: StackLayout): Record<string, string> {
  const env: Record<string, string> = {
    AUTH_JWKS_URL: `http://127.0.0.1:${stackPort("auth", "http", layout)}/api/v2/auth/.well-known/jwks.json`,
  };
  for (const name of SERVICE_NAMES) {
    env[`${name.toUpperCase()}_GRPC_ADDR`] = `127.0.0.1:${stackPort(name, "grpc", layout)}`;
    env[`${name.toUpperCase()}_URL`] = `http://127.0.0.1:${stackPort(name, "http", layout)}`;
  }
  if (layout.namespace) Object.assign(env, { NATS_STREAM: layout.namespace.toUpperCase(), NATS_SUBJECT_PREFIX: layout.namespace });
  return env;
}

/** What one service is told on top: its ports and, in a namespace, its database. */
export function serviceEnvironment(name: ServiceName, layout: StackLayout): Record<string, string> {
  return {
    PORT: String(stackPort(name, "http", layout)),
    GRPC_PORT: String(stackPort(name, "grpc", layout)),
    ...(layout.namespace ? { DATABASE_NAME: `${layout.namespace}_${name}` } : {}),
  };
}
