import http from "node:http";
import https from "node:https";
import type { ServiceName } from "@docex/kit/config";

export interface Upstream {
  service: ServiceName;
  url: string;
  agent: http.Agent;
}

/**
 * One keep-alive agent per service, so that proxied requests reuse connections instead of
 * paying a TCP handshake each. The services' servers keep idle connections for 65 s and
 * say so in `Keep-Alive: timeout=`, which Node's agent honours, so a reused socket is not
 * one the service is about to close.
 */
export class UpstreamPool {
  private readonly upstreams: Map<ServiceName, Upstream>;

  constructor(urls: Record<ServiceName, string>) {
    this.upstreams = new Map(
      (Object.entries(urls) as [ServiceName, string][]).map(([service, url]) => {
        const Agent = url.startsWith("https:") ? https.Agent : http.Agent;
        return [service, { service, url, agent: new Agent({ keepAlive: true, scheduling: "lifo" }) }];
      }),
    );
  }

  get(service: ServiceName): Upstream {
    const upstream = this.upstreams.get(service);
    if (!upstream) throw new Error(`No upstream URL configured for the ${service} service.`);
    return upstream;
  }

  all(): Upstream[] {
    return [...this.upstreams.values()];
  }

  /** Closes the pooled connections; call after the gateway's server stopped accepting requests. */
  destroy(): void {
    for (const upstream of this.upstreams.values()) upstream.agent.destroy();
  }
}
