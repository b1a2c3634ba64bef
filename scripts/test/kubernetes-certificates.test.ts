// Certificates (issue 40 item 6): the public edge's certificate comes from cert-manager over ACME (no hand-made
// Secret), every Certificate of every render has an issuer that exists, and every Certificate's expiry and readiness
// is alerted on, with promtool tests that fire each alert (monitoring-rules.test.ts runs them).
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { parse } from "yaml";
import { type KubernetesFacts, k8sDir, loadDeployment, monitoringDir, RENDER_NAMES, schemaProblems } from "./support/kubernetes.js";
import { renderKustomization, renderWithComponents } from "./support/kustomize.js";
import { find, type K8sObject, ofKind, readManifests, sortKeys, type Workload } from "./support/manifests.js";
import { type Endpoint, mayConnect, type NetworkPolicy } from "./support/network-policy.js";
import { promqlProblems } from "./support/promql.js";

type CertificateObject = K8sObject & {
  spec: { secretName: string; dnsNames?: string[]; renewBefore?: string; issuerRef: { name: string; kind?: string; group?: string } };
};
type IssuerObject = K8sObject & {
  spec: {
    selfSigned?: object;
    ca?: { secretName: string };
    acme?: {
      server: string;
      email?: string;
      privateKeySecretRef: { name: string };
      solvers: {
        http01?: { gatewayHTTPRoute?: { parentRefs: { name: string; namespace?: string; kind?: string; sectionName?: string }[] } };
      }[];
    };
  };
};
type GatewayObject = K8sObject & {
  spec: { listeners: { name: string; protocol: string; hostname?: string; tls?: { certificateRefs?: { name: string }[] } }[] };
};
interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
}

/** cert-manager's metrics (its controller's /metrics), and Prometheus' absent(). */
const CERT_MANAGER_METRICS = new Set([
  "certmanager_certificate_expiration_timestamp_seconds",
  "certmanager_certificate_ready_status",
  "certmanager_certificate_renewal_timestamp_seconds",
]);

describe("Kubernetes: certificates from cert-manager, and alerts on every one (issue 40 item 6)", function () {
  this.timeout(60_000);
  let renders = {} as KubernetesFacts["renders"];
  let monitoring: K8sObject[] = [];
  let cluster: K8sObject[] = [];

  before(async () => {
    ({ renders, monitoring } = await loadDeployment());
    cluster = renderKustomization(path.join(k8sDir, "cluster"));
  });

  const issuerOf = (objects: K8sObject[], certificate: CertificateObject) =>
    certificate.spec.issuerRef.kind === "ClusterIssuer"
      ? find<IssuerObject>(cluster, "ClusterIssuer", certificate.spec.issuerRef.name)
      : find<IssuerObject>(objects, "Issuer", certificate.spec.issuerRef.name);

  it("production: the Gateway's HTTPS listener serves the Secret of a Certificate for exactly its host, issued over ACME by deploy/k8s/cluster's ClusterIssuer, whose HTTP-01 challenge is answered through the Gateway's plain-HTTP listener", async () => {
    const [site] = readManifests(path.join(k8sDir, "overlays/production/site.yaml"));
    const gateway = find<GatewayObject>(renders.production, "Gateway", "docex");
    const https = gateway?.spec.listeners.find((listener) => listener.protocol === "HTTPS");
    const secretName = https?.tls?.certificateRefs?.[0]?.name;
    const certificate = ofKind<CertificateObject>(renders.production, "Certificate").find(
      (candidate) => candidate.spec.secretName === secretName,
    );
    expect(certificate, `a Certificate writing the Secret ${secretName}`).to.not.equal(undefined);
    expect(certificate?.spec.dnsNames).to.deep.equal([site?.data?.host]);
    expect(certificate?.spec.renewBefore, "renewed 30 days before its 90 days end, as the alert expects").to.equal("720h");
    const issuer = issuerOf(renders.production, certificate as CertificateObject);
    expect(issuer?.kind).to.equal("ClusterIssuer");
    expect(issuer?.spec.acme?.server).to.equal("https://acme-v02.api.letsencrypt.org/directory");
    expect(issuer?.spec.acme?.email ?? "", "an address someone reads").to.match(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect(issuer?.spec.acme?.email).to.not.match(/example\.(com|org|net)$/);
    const parentRefs = issuer?.spec.acme?.solvers.flatMap((solver) => solver.http01?.gatewayHTTPRoute?.parentRefs ?? []) ?? [];
    const http = gateway?.spec.listeners.find((listener) => listener.protocol === "HTTP");
    expect(parentRefs).to.deep.include({
      group: "gateway.networking.k8s.io",
      kind: "Gateway",
      name: gateway?.metadata.name,
      namespace: gateway?.metadata.namespace,
      sectionName: http?.name,
    });
    expect(http?.hostname, "the challenge is asked on the certificate's host").to.equal(site?.data?.host);
    expect(ofKind(renders.production, "Secret"), "no certificate made by hand").to.deep.equal([]);
    const problems = await schemaProblems(cluster);
    expect(problems, problems.join("\n")).to.deep.equal([]);
  });

  it("production: the ACME solver's pods are reachable from the edge's namespace on their port, and from no other pod", () => {
    const policies = ofKind<NetworkPolicy>(renders.production, "NetworkPolicy");
    const solver: Endpoint = {
      label: "cert-manager's HTTP-01 solver",
      namespace: "docex",
      labels: { "acme.cert-manager.io/http01-solver": "true" },
      ip: "10.244.7.1",
    };
    const traefik: Endpoint = { label: "Traefik", namespace: "traefik", labels: {}, ip: "10.244.9.1" };
    const service: Endpoint = {
      label: "a service",
      namespace: "docex",
      labels: { "app.kubernetes.io/component": "service" },
      ip: "10.244.6.2",
    };
    expect(mayConnect(policies, traefik, solver, 8089), "Traefik → solver:8089").to.equal(true);
    expect(mayConnect(policies, traefik, solver, 8080), "Traefik → solver:8080").to.equal(false);
    expect(mayConnect(policies, service, solver, 8089), "a service → solver").to.equal(false);
  });

  for (const name of RENDER_NAMES) {
    it(`${name}: every Certificate names an issuer that the render or deploy/k8s/cluster has; dev issues the public ones self-signed, never over ACME`, () => {
      const certificates = ofKind<CertificateObject>(renders[name], "Certificate");
      expect(certificates.length).to.be.greaterThan(0);
      const missing = certificates
        .filter((certificate) => !issuerOf(renders[name], certificate))
        .map(
          (certificate) =>
            `${certificate.metadata.name}: ${certificate.spec.issuerRef.kind ?? "Issuer"} ${certificate.spec.issuerRef.name}`,
        );
      expect(missing, missing.join("\n")).to.deep.equal([]);
      if (name === "dev")
        for (const certificate of certificates)
          expect(issuerOf(renders.dev, certificate)?.spec.acme, `${certificate.metadata.name} in dev`).to.equal(undefined);
    });
  }

  it("alerts on the expiry (renewal overdue, and close) and the readiness of every Certificate in docex's namespace, and when cert-manager's metrics are missing; over cert-manager's metrics only, each fired by a promtool test", () => {
    const rules = ofKind<K8sObject & { spec: { groups: { rules: Rule[] }[] } }>(monitoring, "PrometheusRule")
      .filter((rule) => rule.metadata.name === "docex-certificates")
      .flatMap((rule) => rule.spec.groups.flatMap((group) => group.rules));
    expect(rules.length).to.be.greaterThan(0);
    const problems = promqlProblems(rules, CERT_MANAGER_METRICS, "cert-manager");
    for (const { alert, expr } of rules) {
      for (const [, namespace] of expr.matchAll(/certmanager_\w+\{[^}]*namespace="([^"]*)"/g))
        if (namespace !== "docex") problems.push(`${alert}: selects namespace ${namespace}`);
    }
    expect(problems, problems.join("\n")).to.deep.equal([]);
    // Every Certificate of every render lives in that namespace, so the alerts see each one.
    for (const name of RENDER_NAMES)
      for (const certificate of ofKind(renders[name], "Certificate"))
        expect(certificate.metadata.namespace, certificate.metadata.name).to.equal("docex");
    const exprOf = (alert: string) =>
      rules
        .filter((rule) => rule.alert === alert)
        .map((rule) => rule.expr)
        .join("\n");
    expect(exprOf("DocexCertificateExpiring")).to.include("certmanager_certificate_expiration_timestamp_seconds");
    expect(rules.filter((rule) => rule.alert === "DocexCertificateExpiring").map((rule) => rule.labels?.severity)).to.have.members([
      "warning",
      "critical",
    ]);
    expect(exprOf("DocexCertificateNotReady")).to.include("certmanager_certificate_ready_status");
    expect(exprOf("DocexCertificatesUnwatched")).to.match(/^absent\(/);
    const tests = parse(readFileSync(path.join(monitoringDir, "rule-tests/certificates.test.yaml"), "utf8")) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: { exp_labels: { severity?: string } }[] }[] }[];
    };
    const fired = new Set(
      tests.tests.flatMap((test) =>
        (test.alert_rule_test ?? []).flatMap((check) =>
          check.exp_alerts.map((expected) => `${check.alertname}/${expected.exp_labels.severity}`),
        ),
      ),
    );
    const unfired = rules.map((rule) => `${rule.alert}/${rule.labels?.severity}`).filter((alert) => !fired.has(alert));
    expect(unfired, "alerts no promtool test fires").to.deep.equal([]);
  });

  it("components/grpc-trust-bundle (a CA rotation's trust bundle): every process trusts the CAs of the ConfigMap docex-grpc-trust and keeps its own certificate and key from its own Secret, at the same GRPC_TLS_DIR; both renderers agree", async () => {
    // deploy/README.md, "Rotating the gRPC CA": the component added to the production overlay.
    const { objects: rendered, kubectl } = renderWithComponents(
      [path.join(k8sDir, "overlays/production")],
      [path.join(k8sDir, "components/grpc-trust-bundle")],
    );
    const problems = await schemaProblems(rendered);
    expect(problems, problems.join("\n")).to.deep.equal([]);
    if (kubectl) {
      const normal = (objects: K8sObject[]) => objects.map((object) => JSON.stringify(sortKeys(object))).sort();
      expect(normal(rendered)).to.deep.equal(normal(kubectl));
    }
    const before = ofKind<Workload>(renders.production, "Deployment");
    const after = ofKind<Workload>(rendered, "Deployment");
    expect(after.map((deployment) => deployment.metadata.name).sort()).to.deep.equal(
      before.map((deployment) => deployment.metadata.name).sort(),
    );
    for (const deployment of after) {
      const name = deployment.metadata.name;
      const original = before.find((candidate) => candidate.metadata.name === name) as Workload;
      // The volume mounted at GRPC_TLS_DIR, before and after.
      const container = deployment.spec.template.spec.containers.find((candidate) => candidate.name === name);
      const mount = container?.volumeMounts?.find((candidate) => candidate.mountPath === "/var/run/docex/grpc-identity");
      const volume = deployment.spec.template.spec.volumes?.find((candidate) => candidate.name === mount?.name) as
        | {
            projected?: {
              sources: {
                secret?: { name: string; items: { key: string; path: string }[] };
                configMap?: { name: string; items: { key: string; path: string }[] };
              }[];
            };
          }
        | undefined;
      const originalSecret = original.spec.template.spec.volumes?.find((candidate) => candidate.name === mount?.name)?.secret as
        | { secretName: string; items: { key: string; path: string }[] }
        | undefined;
      expect(
        originalSecret?.items.map((item) => item.key),
        `${name}: the base's identity`,
      ).to.deep.equal(["ca.crt", "tls.crt", "tls.key"]);
      expect(volume?.projected?.sources, name).to.deep.equal([
        { secret: { name: originalSecret?.secretName, items: originalSecret?.items.filter((item) => item.key !== "ca.crt") } },
        { configMap: { name: "docex-grpc-trust", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      ]);
    }
  });
});
