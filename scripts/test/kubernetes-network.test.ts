// Who may reach whom: the NetworkPolicies open exactly the paths of the architecture, the edge (Traefik,
// components/gateway-api) reaches the gateway, and gRPC between services is mutual TLS with one identity per service.
import path from "node:path";
import { expect } from "chai";
import {
  environmentOf,
  type KubernetesFacts,
  k8sDir,
  loadDeployment,
  type ProcessFacts,
  RENDER_NAMES,
  RENDERS,
  type RenderName,
} from "./support/kubernetes.js";
import { find, type K8sObject, ofKind, readManifests } from "./support/manifests.js";
import { type Endpoint, inCidr, mayConnect, type NetworkPolicy, podsOf } from "./support/network-policy.js";

/** The namespace of the edge each render admits to the gateway: Traefik's (components/gateway-api); base has no edge. */
const EDGE_NAMESPACE: Record<RenderName, string | undefined> = { base: undefined, dev: "traefik", production: "traefik" };

describe("Kubernetes manifests: network and service identity", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let processes: ProcessFacts[] = [];

  before(async () => {
    ({ renders, processes } = await loadDeployment());
  });

  describe("service identity (gRPC mutual TLS)", () => {
    interface CertificateObject extends K8sObject {
      spec: {
        secretName: string;
        commonName?: string;
        dnsNames?: string[];
        isCA?: boolean;
        usages?: string[];
        issuerRef: { name: string; kind?: string; group?: string };
      };
    }
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: a cert-manager CA Issuer signs one Certificate per service (CN and DNS name = the service), each mounted only into its service at GRPC_TLS_DIR`, () => {
        const objects = renders[name];
        const caIssuer = find<K8sObject & { spec: { ca?: { secretName: string } } }>(objects, "Issuer", "docex-grpc-ca");
        expect(caIssuer?.spec.ca, "Issuer docex-grpc-ca is a CA issuer").to.be.an("object");
        const ca = ofKind<CertificateObject>(objects, "Certificate").find((cert) => cert.spec.secretName === caIssuer?.spec.ca?.secretName);
        expect(ca?.spec.isCA, "the CA issuer's Secret is a CA Certificate").to.equal(true);
        const problems: string[] = [];
        for (const process of processes.filter((candidate) => candidate.name !== "gateway")) {
          const service = process.name;
          const { deployment, container, effective } = environmentOf(objects, service);
          const certificate = ofKind<CertificateObject>(objects, "Certificate").find(
            (cert) => cert.spec.commonName === service && cert.spec.issuerRef.name === "docex-grpc-ca",
          );
          if (!certificate) {
            problems.push(`${service}: no Certificate with commonName ${service} from Issuer docex-grpc-ca`);
            continue;
          }
          if (JSON.stringify(certificate.spec.dnsNames) !== JSON.stringify([service]))
            problems.push(`${service}: dnsNames ${certificate.spec.dnsNames}`);
          for (const usage of ["server auth", "client auth"])
            if (!certificate.spec.usages?.includes(usage)) problems.push(`${service}: the certificate lacks usage ${usage}`);
          if (effective.GRPC_INSECURE !== undefined) problems.push(`${service}: GRPC_INSECURE is set`);
          const tlsDir = effective.GRPC_TLS_DIR;
          if (!tlsDir) problems.push(`${service}: GRPC_TLS_DIR is not set`);
          const podSpec = deployment.spec.template.spec;
          const secretVolumes = (podSpec.volumes ?? []).filter((volume) => volume.secret);
          const own = secretVolumes.find((volume) => volume.secret?.secretName === certificate.spec.secretName);
          if (!own) {
            problems.push(`${service}: does not mount Secret ${certificate.spec.secretName}`);
            continue;
          }
          // Other services' identities (issued by the internal CA); a public certificate (the intake's STARTTLS) is no identity.
          const others = ofKind<CertificateObject>(objects, "Certificate").filter(
            (cert) => cert !== certificate && (cert.spec as { issuerRef?: { name?: string } }).issuerRef?.name === "docex-grpc-ca",
          );
          for (const volume of secretVolumes)
            if (others.some((cert) => cert.spec.secretName === volume.secret?.secretName))
              problems.push(`${service}: mounts another identity's Secret ${volume.secret?.secretName}`);
          const items = Object.fromEntries((own.secret?.items ?? []).map((item) => [item.key, item.path]));
          const expected = { "ca.crt": "ca.crt", "tls.crt": `${service}.crt`, "tls.key": `${service}.key` };
          if (JSON.stringify(items) !== JSON.stringify(expected)) problems.push(`${service}: Secret items ${JSON.stringify(items)}`);
          const mount = container.volumeMounts?.find((candidate) => candidate.name === own.name);
          if (mount?.mountPath !== tlsDir || mount?.readOnly !== true)
            problems.push(`${service}: mounted at ${mount?.mountPath}, not read-only at ${tlsDir}`);
          // The key is readable by the service's user through its group, by nobody else.
          if (podSpec.securityContext?.fsGroup === undefined || (own.secret?.defaultMode ?? 0o644) & 0o007)
            problems.push(`${service}: the key is world-readable or not given to the pod's fsGroup`);
        }
        expect(problems).to.deep.equal([]);
      });
    }
  });

  describe("network", () => {
    const PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"];
    for (const name of RENDER_NAMES) {
      it(`${name}: the gateway believes X-Forwarded-For only from the pod range, where the NetworkPolicies let no pod but the edge's reach it`, () => {
        const gateway = processes.find((process) => process.name === "gateway");
        const { effective } = environmentOf(renders[name], "gateway");
        const trusted = (gateway?.schema.safeParse(effective).data?.GATEWAY_TRUSTED_PROXIES ?? []) as string[];
        expect(trusted.length, "GATEWAY_TRUSTED_PROXIES").to.be.greaterThan(0);
        const policies = ofKind<NetworkPolicy>(renders[name], "NetworkPolicy");
        const target = podsOf(renders[name]).get("gateway") as Endpoint;
        const problems: string[] = [];
        for (const cidr of trusted) {
          const [address = "", bits = ""] = cidr.split("/");
          if (!/^\d+\.\d+\.\d+\.\d+$/.test(address) || !/^\d+$/.test(bits) || Number(bits) < 8 || Number(bits) > 32) {
            problems.push(`${cidr}: not an IPv4 range of at most a /8 (a keyword such as uniquelocal trusts more than the pod range)`);
            continue;
          }
          if (!PRIVATE_RANGES.some((range) => inCidr(address, range) && Number(bits) >= Number(range.split("/")[1])))
            problems.push(`${cidr}: not inside a private range`);
          // A pod of the range: only the ingress controller may open a connection to the gateway from it.
          const inside = address.replace(/\d+$/, (last) => String(Number(last) + 10));
          const edgeNamespace = EDGE_NAMESPACE[name];
          const edge: Endpoint = { label: "the edge (Traefik)", namespace: edgeNamespace ?? "traefik", labels: {}, ip: inside };
          const retired: Endpoint = { label: "ingress-nginx", namespace: "ingress-nginx", labels: {}, ip: inside };
          const stranger: Endpoint = { label: "a pod of another namespace", namespace: "default", labels: {}, ip: inside };
          const service: Endpoint = { ...(podsOf(renders[name]).get("document") as Endpoint), ip: inside };
          if (edgeNamespace && !mayConnect(policies, edge, target, 8080)) problems.push(`${cidr}: the edge cannot reach the gateway`);
          for (const other of [stranger, service, retired, ...(edgeNamespace ? [] : [edge])])
            if (mayConnect(policies, other, target, 8080))
              problems.push(`${cidr}: ${other.label} reaches the gateway and would be believed`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    for (const name of ["dev", "production"] as const) {
      it(`${name}: NetworkPolicies let the edge (Traefik) reach the gateway, the gateway the services' HTTP, services each other's gRPC and their Postgres and NATS, only the webhook service the internet, and auth its mail relay and social login issuers`, () => {
        const policies = ofKind<NetworkPolicy>(renders[name], "NetworkPolicy");
        const pods = podsOf(renders[name]);
        const pod = (label: string) => {
          const found = pods.get(label);
          if (!found) throw new Error(`no pod ${label} in ${name}`);
          return found;
        };
        const ingressController: Endpoint = {
          label: "the edge (Traefik)",
          namespace: EDGE_NAMESPACE[name] ?? "",
          labels: { "app.kubernetes.io/name": "traefik" },
          ip: "10.244.9.1",
        };
        const retiredController: Endpoint = { label: "ingress-nginx", namespace: "ingress-nginx", labels: {}, ip: "10.244.9.4" };
        const prometheus: Endpoint = { label: "prometheus", namespace: "monitoring", labels: { app: "prometheus" }, ip: "10.244.9.2" };
        const stranger: Endpoint = { label: "a pod of another namespace", namespace: "default", labels: {}, ip: "10.244.9.3" };
        const dns: Endpoint = {
          label: "kube-dns",
          namespace: "kube-system",
          labels: { "k8s-app": "kube-dns" },
          ip: "10.96.0.10",
          ports: [{ name: "dns", containerPort: 53, protocol: "UDP" }],
        };
        const nodeLocalDns: Endpoint = { label: "NodeLocal DNSCache", ip: "169.254.20.10" };
        const receiver: Endpoint = { label: "a receiver on the internet", ip: "203.0.113.10" };
        const privateHost: Endpoint = { label: "a private address", ip: "10.20.0.5" };
        const metadataService: Endpoint = { label: "the cloud metadata service", ip: "169.254.169.254" };
        const externalPostgres: Endpoint = { label: "the external Postgres", ip: "10.30.0.7" };
        const postgres = name === "dev" ? pod("postgres") : externalPostgres;
        const nats = pod("nats");

        const expectations: [Endpoint, Endpoint, number, boolean, string?][] = [
          [ingressController, pod("gateway"), 8080, true],
          [retiredController, pod("gateway"), 8080, false],
          [stranger, pod("gateway"), 8080, false],
          [ingressController, pod("document"), processes.find((process) => process.name === "document")?.http ?? 0, false],
          [pod("gateway"), receiver, 443, false],
          [pod("gateway"), postgres, 5432, false],
          [pod("gateway"), nats, 4222, false],
          [stranger, nats, 4222, false],
          [nats, pod("nats"), 6222, true],
          [pod("webhook"), receiver, 443, true],
          [pod("webhook"), receiver, 8443, true],
          [pod("webhook"), privateHost, 443, false],
          [pod("webhook"), metadataService, 80, false],
          [pod("webhook"), nodeLocalDns, 80, false],
          [pod("webhook"), pod("gateway"), 8080, false],
        ];
        if (name === "dev") expectations.push([stranger, postgres, 5432, false]);
        for (const process of processes) {
          const self = pod(process.name);
          expectations.push(
            [self, dns, 53, true, "UDP"],
            [self, nodeLocalDns, 53, true, "UDP"],
            [prometheus, self, process.http, true],
            [stranger, self, process.http, false],
          );
          if (process.name === "gateway") continue;
          expectations.push(
            [pod("gateway"), self, process.http, true],
            [pod("gateway"), self, process.grpc, false],
            [self, postgres, 5432, true],
            [self, nats, 4222, true],
            [prometheus, self, process.grpc, false],
          );
          // auth: social login issuers' keys over HTTPS, and mail to the SMTP relay wherever it is.
          // document in production: the S3 file store over HTTPS, wherever its endpoint is (a VPC endpoint is private).
          const objectStore = name === "production" && process.name === "document";
          if (process.name !== "webhook") expectations.push([self, receiver, 443, process.name === "auth" || objectStore]);
          expectations.push(
            [self, privateHost, 587, process.name === "auth"],
            [self, privateHost, 443, objectStore],
            [self, metadataService, 443, false],
            [self, metadataService, 80, false],
          );
          for (const other of processes.filter((candidate) => candidate.name !== "gateway" && candidate.name !== process.name)) {
            expectations.push([self, pod(other.name), other.grpc, true], [self, pod(other.name), other.http, other.name === "auth"]);
          }
        }
        const wrong = expectations
          .filter(([from, to, port, allowed, protocol]) => mayConnect(policies, from, to, port, protocol) !== allowed)
          .map(
            ([from, to, port, allowed, protocol]) =>
              `${from.label} → ${to.label}:${port}/${protocol ?? "TCP"} should be ${allowed ? "allowed" : "denied"}`,
          );
        expect(wrong, wrong.join("\n")).to.deep.equal([]);
      });
    }

    it("production: the documents' files are in the S3 bucket and region of site.yaml, with document's own key when it has one, and only document reaches the object store", () => {
      const [site] = readManifests(path.join(k8sDir, "overlays/production/site.yaml"));
      const { effective, secretRefs } = environmentOf(renders.production, "document");
      expect(site?.data?.fileStore).to.match(/^s3:\/\/[a-z0-9.-]+(\/.*)?$/);
      expect(effective.FILE_STORE_URL).to.equal(site?.data?.fileStore);
      expect(effective.AWS_REGION).to.equal(site?.data?.fileStoreRegion);
      for (const key of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"])
        expect(secretRefs.get(key), key).to.deep.equal({ name: "document-secrets", key, optional: true });
      for (const other of processes.filter((process) => process.name !== "document"))
        expect(environmentOf(renders.production, other.name).effective.FILE_STORE_URL, other.name).to.equal(undefined);
      for (const render of ["base", "dev"] as const)
        expect(environmentOf(renders[render], "document").effective.FILE_STORE_URL ?? "", `${render}: files in Postgres`).to.equal("");
    });
  });
});
