// The public edge on Gateway API (issue 40 item 4): dev and production render components/gateway-api, a Gateway
// and HTTPRoutes for Traefik Proxy with Traefik's own policies for the body and the wait for the gateway, all
// validated against their schemas (@kubernetes-models/gateway-api and @kubernetes-models/traefik) with known field
// names only; the Ingress is left as the optional components/ingress-nginx, which renders on its own.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROUTES } from "@docex/gateway";
import { expect } from "chai";
import { parseAllDocuments } from "yaml";
import { type KubernetesFacts, k8sDir, loadDeployment, type ProcessFacts, schemaProblems } from "./support/kubernetes.js";
import { renderKustomization } from "./support/kustomize.js";
import { clone, find, idOf, type K8sObject, ofKind, sortKeys } from "./support/manifests.js";
import { type Endpoint, mayConnect, type NetworkPolicy, podsOf } from "./support/network-policy.js";

interface GatewayObject extends K8sObject {
  spec: {
    gatewayClassName: string;
    listeners: {
      name: string;
      protocol: string;
      port: number;
      hostname?: string;
      tls?: { mode?: string; certificateRefs?: { kind?: string; name: string }[] };
      allowedRoutes?: { namespaces?: { from?: string } };
    }[];
  };
}
interface RouteObject extends K8sObject {
  spec: {
    parentRefs: { name: string; sectionName?: string }[];
    hostnames?: string[];
    rules: {
      matches?: { path?: { type: string; value: string } }[];
      filters?: {
        type: string;
        extensionRef?: { group: string; kind: string; name: string };
        requestRedirect?: { scheme?: string; port?: number; statusCode?: number };
      }[];
      backendRefs?: { group?: string; kind?: string; name: string; port?: number }[];
    }[];
  };
}
interface MiddlewareObject extends K8sObject {
  spec: { buffering?: { maxRequestBodyBytes?: number; memRequestBodyBytes?: number } };
}
interface TraefikServiceObject extends K8sObject {
  spec: { weighted?: { services: { name: string; port?: string | number; serversTransport?: string; kind?: string }[] } };
}
interface TransportObject extends K8sObject {
  spec: { forwardingTimeouts?: { dialTimeout?: string; responseHeaderTimeout?: string; idleConnTimeout?: string } };
}

/** A Go duration of seconds and minutes (`35s`, `1m30s`) in milliseconds. */
function durationMs(text: string | undefined): number {
  const match = text?.match(/^(?:(\d+)m)?(?:(\d+)s)?$/);
  if (!text || !match || (match[1] === undefined && match[2] === undefined)) return Number.NaN;
  return (Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0)) * 1000;
}

const edgeOf = (objects: K8sObject[]) => objects.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "edge");

describe("Kubernetes: the public edge on Gateway API (issue 40 item 4)", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let processes: ProcessFacts[] = [];
  before(async () => {
    ({ renders, processes } = await loadDeployment());
  });

  for (const name of ["dev", "production"] as const) {
    it(`${name}: one Gateway for Traefik, HTTPS with the certificate docex-tls on its websecure entry point, plain HTTP only redirected; no Ingress`, () => {
      const gateways = ofKind<GatewayObject>(renders[name], "Gateway");
      expect(gateways.map(idOf)).to.deep.equal(["Gateway/docex/docex"]);
      const [gateway] = gateways as [GatewayObject];
      expect(gateway.spec.gatewayClassName).to.equal("traefik");
      const https = gateway.spec.listeners.find((listener) => listener.protocol === "HTTPS");
      expect(https?.port, "Traefik's websecure entry point").to.equal(8443);
      expect(https?.tls?.mode).to.equal("Terminate");
      expect(https?.tls?.certificateRefs).to.deep.equal([{ kind: "Secret", name: "docex-tls" }]);
      const http = gateway.spec.listeners.find((listener) => listener.protocol === "HTTP");
      expect(http?.port, "Traefik's web entry point").to.equal(8000);
      for (const listener of gateway.spec.listeners) expect(listener.allowedRoutes?.namespaces?.from, listener.name).to.equal("Same");
      const onHttp = ofKind<RouteObject>(renders[name], "HTTPRoute").filter((route) =>
        route.spec.parentRefs.some((parent) => parent.sectionName === "http"),
      );
      expect(onHttp.map((route) => route.metadata.name)).to.deep.equal(["gateway-https-redirect"]);
      expect(onHttp[0]?.spec.rules).to.deep.equal([
        { filters: [{ type: "RequestRedirect", requestRedirect: { scheme: "https", port: 443, statusCode: 301 } }] },
      ]);
      expect(ofKind(renders[name], "Ingress")).to.deep.equal([]);
    });

    it(`${name}: the HTTPRoute sends /api/v2 and /app (nothing else: not /healthz, /readyz or /metrics) over HTTPS to the gateway's http port`, () => {
      const route = find<RouteObject>(renders[name], "HTTPRoute", "gateway");
      expect(route?.spec.parentRefs).to.deep.equal([{ name: "docex", sectionName: "https" }]);
      expect(route?.spec.rules.length).to.equal(1);
      const [rule] = route?.spec.rules ?? [];
      expect(rule?.matches?.map((match) => [match.path?.type, match.path?.value])).to.deep.equal([
        ["PathPrefix", "/api/v2"],
        ["PathPrefix", "/app"],
      ]);
      expect(rule?.backendRefs).to.deep.equal([{ group: "traefik.io", kind: "TraefikService", name: "gateway" }]);
      const service = find<TraefikServiceObject>(renders[name], "TraefikService", "gateway");
      expect(service?.spec.weighted?.services).to.deep.equal([{ name: "gateway", port: "http", serversTransport: "gateway-upstream" }]);
      const gatewayService = find<K8sObject & { spec: { ports: { name?: string }[] } }>(renders[name], "Service", "gateway");
      expect(gatewayService?.spec.ports.map((port) => port.name)).to.include("http");
    });

    it(`${name}: Traefik's policies: a body up to the gateway's largest route limit (POST /registers) and no more, and a wait for the gateway just above its upstream timeout`, () => {
      const route = find<RouteObject>(renders[name], "HTTPRoute", "gateway");
      const filters = route?.spec.rules[0]?.filters ?? [];
      expect(filters).to.deep.equal([
        { type: "ExtensionRef", extensionRef: { group: "traefik.io", kind: "Middleware", name: "gateway-body-limit" } },
      ]);
      const largest = Math.max(...ROUTES.map((definition) => definition.bodyLimitBytes));
      const middleware = find<MiddlewareObject>(renders[name], "Middleware", "gateway-body-limit");
      expect(middleware?.spec.buffering?.maxRequestBodyBytes, "the largest body a route of the gateway accepts").to.equal(largest);
      expect(middleware?.spec.buffering?.memRequestBodyBytes ?? Number.POSITIVE_INFINITY, "large bodies to disk").to.be.at.most(
        2 * 1024 * 1024,
      );
      const upstreamMs = Number(processes.find((process) => process.name === "gateway")?.defaults.GATEWAY_UPSTREAM_TIMEOUT_MS);
      expect(upstreamMs).to.be.greaterThan(0);
      const transport = find<TransportObject>(renders[name], "ServersTransport", "gateway-upstream");
      const wait = durationMs(transport?.spec.forwardingTimeouts?.responseHeaderTimeout);
      expect(wait, "the gateway answers 504 first").to.be.greaterThan(upstreamMs);
      expect(wait, "and not much later").to.be.at.most(upstreamMs + 10_000);
      expect(durationMs(transport?.spec.forwardingTimeouts?.dialTimeout)).to.be.at.most(10_000);
    });

    it(`${name}: the edge's objects validate strictly, and the validation catches a misspelt field and a wrong type`, async () => {
      const edge = edgeOf(renders[name]);
      expect(edge.map((object) => object.kind).sort()).to.deep.equal([
        // The Gateway's certificate, from cert-manager (kubernetes-certificates.test.ts).
        "Certificate",
        "Gateway",
        "HTTPRoute",
        "HTTPRoute",
        "Middleware",
        "ServersTransport",
        "TraefikService",
      ]);
      expect(await schemaProblems(edge)).to.deep.equal([]);
      const misspelt = clone(find<MiddlewareObject>(edge, "Middleware", "gateway-body-limit") as MiddlewareObject);
      (misspelt.spec.buffering as Record<string, unknown>).maxRequestBodyByte = 1;
      const wrongType = clone(find<GatewayObject>(edge, "Gateway", "docex") as GatewayObject);
      (wrongType.spec.listeners[0] as { port: unknown }).port = "https";
      const problems = await schemaProblems([misspelt, wrongType]);
      expect(problems.some((problem) => problem.includes("unknown field .spec.buffering.maxRequestBodyByte"))).to.equal(true);
      expect(problems.some((problem) => problem.startsWith("Gateway/docex/docex:") && !problem.includes("unknown field"))).to.equal(true);
    });
  }

  it("production: Traefik's namespace alone may reach the gateway's pods; ingress-nginx's no longer", () => {
    const policies = ofKind<NetworkPolicy>(renders.production, "NetworkPolicy");
    const gateway = podsOf(renders.production).get("gateway") as Endpoint;
    const traefik: Endpoint = { label: "Traefik", namespace: "traefik", labels: {}, ip: "10.244.9.1" };
    const nginx: Endpoint = { label: "ingress-nginx", namespace: "ingress-nginx", labels: {}, ip: "10.244.9.2" };
    expect(mayConnect(policies, traefik, gateway, 8080)).to.equal(true);
    expect(mayConnect(policies, nginx, gateway, 8080)).to.equal(false);
    expect(mayConnect(policies, traefik, podsOf(renders.production).get("document") as Endpoint, 8083)).to.equal(false);
  });

  it("base has no edge: no Gateway, no Ingress, and its NetworkPolicy lets nothing reach the gateway's pods", () => {
    expect(edgeOf(renders.base)).to.deep.equal([]);
    expect(ofKind(renders.base, "Ingress")).to.deep.equal([]);
    const policy = find<NetworkPolicy>(renders.base, "NetworkPolicy", "gateway") as NetworkPolicy & { spec: { ingress?: unknown[] } };
    expect(policy.spec.ingress).to.deep.equal([]);
  });

  it("components/ingress-nginx (optional, instead of gateway-api): the Ingress renders, validates and is reached from ingress-nginx's namespace only; `kubectl kustomize` (when installed) agrees", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "docex-ingress-overlay-"));
    try {
      writeFileSync(
        path.join(dir, "kustomization.yaml"),
        [
          "apiVersion: kustomize.config.k8s.io/v1beta1",
          "kind: Kustomization",
          "namespace: docex",
          "resources:",
          `  - ${path.relative(dir, path.join(k8sDir, "base"))}`,
          "components:",
          `  - ${path.relative(dir, path.join(k8sDir, "components/ingress-nginx"))}`,
          "",
        ].join("\n"),
      );
      const objects = renderKustomization(dir);
      const ingresses = ofKind<
        K8sObject & {
          spec: {
            tls?: unknown[];
            rules: {
              http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { name?: string } } } }[] };
            }[];
          };
        }
      >(objects, "Ingress");
      expect(ingresses.length).to.equal(1);
      const paths = ingresses[0]?.spec.rules.flatMap((rule) => rule.http.paths) ?? [];
      expect(paths.map((entry) => [entry.path, entry.pathType, entry.backend.service.name, entry.backend.service.port.name])).to.deep.equal(
        [
          ["/api/v2", "Prefix", "gateway", "http"],
          ["/app", "Prefix", "gateway", "http"],
        ],
      );
      expect(ingresses[0]?.spec.tls?.length).to.equal(1);
      expect(edgeOf(objects), "no Gateway beside the Ingress").to.deep.equal([]);
      expect(await schemaProblems(objects)).to.deep.equal([]);
      const policies = ofKind<NetworkPolicy>(objects, "NetworkPolicy");
      const gateway = podsOf(objects).get("gateway") as Endpoint;
      const nginx: Endpoint = { label: "ingress-nginx", namespace: "ingress-nginx", labels: {}, ip: "10.244.9.2" };
      const traefik: Endpoint = { label: "Traefik", namespace: "traefik", labels: {}, ip: "10.244.9.1" };
      expect(mayConnect(policies, nginx, gateway, 8080)).to.equal(true);
      expect(mayConnect(policies, traefik, gateway, 8080)).to.equal(false);
      if (spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" }).status !== 0) return;
      const rendered = spawnSync("kubectl", ["kustomize", dir, "--load-restrictor", "LoadRestrictionsNone"], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(rendered.status, rendered.stderr).to.equal(0);
      const theirs = parseAllDocuments(rendered.stdout).flatMap((document) => {
        const value = document.toJS() as K8sObject | null;
        return value ? [value] : [];
      });
      const normal = (list: K8sObject[]) => list.map((object) => JSON.stringify(sortKeys(object))).sort();
      expect(normal(theirs)).to.deep.equal(normal(objects));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
