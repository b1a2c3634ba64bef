// NetworkPolicy semantics, enough to ask "may A open a connection to B on port P?".
import { isWorkload, type K8sObject, type LabelSelector, selects } from "./manifests.js";

export interface Endpoint {
  label: string;
  namespace?: string;
  labels?: Record<string, string>;
  ip: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
}
export interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
export interface PolicyRule {
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
  to?: PolicyPeer[];
  from?: PolicyPeer[];
}
export interface NetworkPolicy extends K8sObject {
  spec: { podSelector: LabelSelector; policyTypes?: string[]; ingress?: PolicyRule[]; egress?: PolicyRule[] };
}

function ipv4(address: string): number | undefined {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) return undefined;
  return parts.reduce((sum, part) => sum * 256 + part, 0);
}

export function inCidr(address: string, cidr: string): boolean {
  const [base = "", bits] = cidr.split("/");
  const ip = ipv4(address);
  const network = ipv4(base);
  if (ip === undefined || network === undefined) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ip / size) === Math.floor(network / size);
}

function peerMatches(peer: PolicyPeer, policyNamespace: string | undefined, other: Endpoint): boolean {
  if (peer.ipBlock) return inCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(other.ip, cidr));
  if (!other.namespace) return false;
  const namespaceOk = peer.namespaceSelector
    ? selects(peer.namespaceSelector, { "kubernetes.io/metadata.name": other.namespace })
    : other.namespace === policyNamespace;
  return namespaceOk && selects(peer.podSelector, other.labels);
}

function portMatches(rule: PolicyRule, destination: Endpoint, port: number, protocol: string): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((spec) => {
    if ((spec.protocol ?? "TCP") !== protocol) return false;
    if (spec.port === undefined) return true;
    if (typeof spec.port === "string") {
      return (destination.ports ?? []).some((named) => named.name === spec.port && named.containerPort === port);
    }
    return spec.endPort ? port >= spec.port && port <= spec.endPort : port === spec.port;
  });
}

function allowedBy(
  policies: NetworkPolicy[],
  pod: Endpoint,
  direction: "Ingress" | "Egress",
  other: Endpoint,
  destination: Endpoint,
  port: number,
  protocol: string,
) {
  const applicable = policies.filter((policy) => {
    const types = policy.spec.policyTypes ?? (policy.spec.egress ? ["Ingress", "Egress"] : ["Ingress"]);
    return policy.metadata.namespace === pod.namespace && types.includes(direction) && selects(policy.spec.podSelector, pod.labels);
  });
  if (applicable.length === 0) return true;
  return applicable.some((policy) =>
    (direction === "Ingress" ? policy.spec.ingress : policy.spec.egress)?.some((rule) => {
      const peers = direction === "Ingress" ? rule.from : rule.to;
      const peerOk = !peers || peers.length === 0 || peers.some((peer) => peerMatches(peer, policy.metadata.namespace, other));
      return peerOk && portMatches(rule, destination, port, protocol);
    }),
  );
}
export function mayConnect(policies: NetworkPolicy[], from: Endpoint, to: Endpoint, port: number, protocol = "TCP"): boolean {
  const egress = from.namespace === undefined || allowedBy(policies, from, "Egress", to, to, port, protocol);
  const ingress = to.namespace === undefined || allowedBy(policies, to, "Ingress", from, to, port, protocol);
  return egress && ingress;
}

export function podsOf(objects: K8sObject[]): Map<string, Endpoint> {
  const pods = new Map<string, Endpoint>();
  objects.filter(isWorkload).forEach((workload, index) => {
    pods.set(workload.metadata.name, {
      label: workload.metadata.name,
      namespace: workload.metadata.namespace,
      labels: workload.spec.template.metadata?.labels ?? {},
      ip: `10.244.1.${index + 10}`,
      ports: workload.spec.template.spec.containers.flatMap((container) => container.ports ?? []),
    });
  });
  return pods;
}
