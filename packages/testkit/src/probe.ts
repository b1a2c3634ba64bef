import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { testGrpcIdentity } from "./grpc-identity.js";

type HealthCheck = (
  request: { service: string },
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response?: { status: string | number }) => void,
) => void;

/**
 * Asks a gRPC server's grpc.health.v1 for a status (`SERVING`, `NOT_SERVING`, ...), over mutual TLS with
 * this process's test identities. `server` is the service the server's certificate names; by default the
 * one of `serviceName` ("docex.webhook.v1.Webhook" → webhook).
 */
export async function grpcHealthStatus(
  address: string,
  serviceName = "",
  timeoutMs = 3_000,
  server = serviceName.split(".")[1],
): Promise<string> {
  if (!server) throw new Error("grpcHealthStatus: name the server's service (its certificate) when asking about the whole server");
  const identity = testGrpcIdentity("gateway");
  const Health = grpc.makeGenericClientConstructor(healthService as grpc.ServiceDefinition, "Health");
  const client = new Health(address, identity.channelCredentials(), identity.channelOptions(server));
  const check = (client as unknown as { Check: HealthCheck }).Check.bind(client);
  try {
    return await new Promise<string>((resolve, reject) => {
      check({ service: serviceName }, { deadline: new Date(Date.now() + timeoutMs) }, (error, response) => {
        if (error) reject(error);
        else resolve(String(response?.status));
      });
    });
  } finally {
    client.close();
  }
}

export interface ServiceProbe {
  ready: boolean;
  readiness: unknown;
  grpcHealth: string | undefined;
  metrics: string;
  unknownRoute: { status: number; contentType: string; body: unknown };
}

/** What an operator would check of a running service: health, readiness, metrics, gRPC health. */
export async function probeRunningService(running: { name: string; httpPort: number; grpcPort: number }): Promise<ServiceProbe> {
  const base = `http://127.0.0.1:${running.httpPort}`;
  const health = await fetch(`${base}/healthz`);
  if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
  const readyz = await fetch(`${base}/readyz`);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const unknown = await fetch(`${base}/api/v2/no-such-route`);
  return {
    ready: readyz.status === 200,
    readiness: await readyz.json(),
    grpcHealth: running.grpcPort ? await grpcHealthStatus(`127.0.0.1:${running.grpcPort}`, "", 3_000, running.name) : undefined,
    metrics,
    unknownRoute: { status: unknown.status, contentType: unknown.headers.get("content-type") ?? "", body: await unknown.json() },
  };
}
