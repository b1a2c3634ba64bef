// Kubernetes objects as plain values: the types the tests read and small helpers over them.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

export interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  spec?: unknown;
  data?: Record<string, string>;
  [field: string]: unknown;
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}
export interface Probe {
  httpGet?: { path: string; port: string | number };
  grpc?: { port: number; service?: string };
  exec?: { command: string[] };
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: unknown; fieldRef?: unknown };
}
export interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
  };
  volumeMounts?: { name: string; mountPath: string; subPath?: string; readOnly?: boolean }[];
  workingDir?: string;
  command?: string[];
  args?: string[];
}
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string }; fsGroup?: number };
  volumes?: {
    name: string;
    emptyDir?: unknown;
    configMap?: { name: string };
    secret?: { secretName: string; defaultMode?: number; items?: { key: string; path: string }[] };
  }[];
  affinity?: {
    podAntiAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { topologyKey: string; labelSelector?: LabelSelector }[];
      preferredDuringSchedulingIgnoredDuringExecution?: { podAffinityTerm: { topologyKey: string; labelSelector?: LabelSelector } }[];
    };
  };
  topologySpreadConstraints?: TopologySpread[];
}
export interface TopologySpread {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: "DoNotSchedule" | "ScheduleAnyway";
  labelSelector?: LabelSelector;
}
export interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    serviceName?: string;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
    selector?: LabelSelector;
    template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
    volumeClaimTemplates?: { metadata: { name: string }; spec: { resources: { requests: { storage: string } } } }[];
  };
}
export interface ServiceObject extends K8sObject {
  spec: { selector?: Record<string, string>; clusterIP?: string; ports: { name?: string; port: number; targetPort?: string | number }[] };
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
export const clone = <T>(value: T): T => structuredClone(value);
export const idOf = (object: K8sObject) => `${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`;
export const WORKLOADS = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);
export const isWorkload = (object: K8sObject): object is Workload => WORKLOADS.has(object.kind);
export const find = <T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name) as T | undefined;
/** A ConfigMap by the name it was given, with or without the hash that kustomize's configMapGenerator appends. */
export const findConfigMap = (objects: K8sObject[], name: string) =>
  objects.find((object) => object.kind === "ConfigMap" && withoutNameHash(object.metadata.name) === name);
/** A generated name without kustomize's hash: `docex-config-6b56fdfggc` → `docex-config`. */
export const withoutNameHash = (name: string) => name.replace(/-[0-9a-z]{10}$/, "");
export const ofKind = <T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string) =>
  objects.filter((object) => object.kind === kind) as T[];

export function readManifests(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, "utf8")).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    const value = document.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

export const containersOf = (pod: PodSpec) => [...(pod.initContainers ?? []), ...pod.containers];

export function selects(selector: LabelSelector | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return true;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === "In") return values.includes(labels[key] ?? "");
    if (operator === "NotIn") return !values.includes(labels[key] ?? "");
    if (operator === "Exists") return key in labels;
    return !(key in labels);
  });
  return byLabels && byExpressions;
}

/** The same value with object keys in order, so that two renderings compare as text. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key])]),
    );
  return value;
}

/** A Kubernetes quantity in base units (cores, bytes), enough to compare requests with limits. */
export function quantity(text: string | undefined): number {
  if (!text) return Number.NaN;
  const match = String(text).match(/^([\d.]+)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/);
  if (!match) return Number.NaN;
  const factors: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(match[1]) * (match[2] ? (factors[match[2]] ?? Number.NaN) : 1);
}

export interface DisruptionBudget extends K8sObject {
  spec: {
    selector: LabelSelector;
    maxUnavailable?: number | string;
    minAvailable?: number | string;
    unhealthyPodEvictionPolicy?: "IfHealthyBudget" | "AlwaysAllow";
  };
}
export interface Autoscaler extends K8sObject {
  spec: { scaleTargetRef: { kind: string; name: string }; minReplicas?: number; maxReplicas: number };
}

/** An int-or-percent of `pods`, as Kubernetes resolves it (percentages rounded up). */
export function podsOfIntOrPercent(value: number | string | undefined, pods: number, fallback: number | string): number {
  const given = value ?? fallback;
  return typeof given === "number" ? given : Math.ceil((pods * Number.parseFloat(given)) / 100);
}

/** The fewest and the most pods a workload runs: its autoscaler's range, or its replicas (1 when unset). */
export function podRange(objects: K8sObject[], workload: Workload): { min: number; max: number } {
  const autoscaler = ofKind<Autoscaler>(objects, "HorizontalPodAutoscaler").find(
    (candidate) => candidate.spec.scaleTargetRef.kind === workload.kind && candidate.spec.scaleTargetRef.name === workload.metadata.name,
  );
  if (autoscaler) return { min: autoscaler.spec.minReplicas ?? 1, max: autoscaler.spec.maxReplicas };
  const replicas = workload.spec.replicas ?? 1;
  return { min: replicas, max: replicas };
}

/** Pods a rolling update adds above the count (maxSurge; Kubernetes's default is 25 %). */
export function surgeOf(workload: Workload, pods: number): number {
  if (workload.kind !== "Deployment" || workload.spec.strategy?.type === "Recreate") return 0;
  return podsOfIntOrPercent(workload.spec.strategy?.rollingUpdate?.maxSurge, pods, "25%");
}

/** How many of `pods` healthy pods a budget lets a drain evict. */
export function disruptionsAllowed(budget: DisruptionBudget, pods: number): number {
  const { maxUnavailable, minAvailable } = budget.spec;
  if (maxUnavailable !== undefined) return Math.min(pods, podsOfIntOrPercent(maxUnavailable, pods, 0));
  return Math.max(0, pods - podsOfIntOrPercent(minAvailable, pods, 0));
}
