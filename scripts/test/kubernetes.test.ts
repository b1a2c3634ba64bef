// Keeps deploy/k8s and deploy/monitoring true to the code: every object of the kustomize base
// and of each overlay validates against the Kubernetes schemas, every process and port of the
// code has its manifest, probes ask what the processes serve, every setting a process reads is
// set (or deliberately left to its default, listed below), secrets are only referenced, the
// network policies open exactly the paths of the architecture, and every alert and dashboard
// query is valid PromQL over metrics the code defines. No cluster is needed: the overlays are
// rendered here (and by `kubectl kustomize` too when it is installed, which must agree).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHttpApp, createLogger, GrpcServer, listen, Metrics, Readiness, SERVICE_PORTS } from "@docex/kit";
import { testGrpcIdentity } from "@docex/testkit";
import * as grpc from "@grpc/grpc-js";
import { parser as promql } from "@prometheus-io/lezer-promql";
import { expect } from "chai";
import { parse, parseAllDocuments } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const k8sDir = path.join(root, "deploy/k8s");
const monitoringDir = path.join(root, "deploy/monitoring");
const RENDERS = { base: "base", dev: "overlays/dev", production: "overlays/production" } as const;
type RenderName = keyof typeof RENDERS;

/**
 * Settings the manifests leave to the code's default, each with the reason. A setting that a
 * process reads and that is neither set in deploy/k8s nor listed here fails the test: set it in
 * the service's ConfigMap (deploy/k8s/base/<service>.yaml) or its Secret, or add it here.
 */
const TUNED_DEFAULT = "a deadline or cache time of a call to another service: the code's default is the tuned value";
const LEFT_TO_THE_CODE: Record<string, string> = {
  EXTRACTION_TIMEOUT_MS: "60 s per file, then its worker is replaced and the document gets a message",
  EXTRACTION_MAX_PAGES: "20 PDF pages read from the text layer",
  EXTRACTION_OCR_PAGES: "3 pages OCRed per scan (0 turns OCR off)",
  EXTRACTION_OCR_TIMEOUT_MS: "30 s for one OCR run",
  EXTRACTION_MAX_FILE_BYTES: "64 MiB read from document at most",
  EXTRACTION_DOCUMENT_DEADLINE_MS: "5 s for GetQueue and RecordExtraction",
  EXTRACTION_READ_DEADLINE_MS: "60 s to stream one file",
  EXTRACTION_CONCURRENCY: "2 documents in flight per replica",
  DATABASE_NAME: "docex_<service>: each service's own database on the server that DATABASE_URL names",
  DATABASE_POOL_MAX: "10 connections per replica; raise it with the server's max_connections in mind",
  MIGRATION_LOCK_WAIT_MS: "5 min for another replica's migrations before the init container fails (and is restarted)",
  MIGRATION_DDL_LOCK_TIMEOUT_MS: "10 s for a migration's table lock: a DDL behind a long transaction fails instead of blocking traffic",
  NATS_STREAM: "DOCEX: every service uses the default; only tests change it",
  NATS_SUBJECT_PREFIX: "docex: as NATS_STREAM",
  GRPC_INSECURE: "false: gRPC is mutual TLS with each service's cert-manager certificate (checked below); never set in a cluster",
  MIGRATE_ONLY: "false: the service serves; only its init container `migrate` sets true (checked below)",
  OTEL_SERVICE_NAME: "the process's own name (gateway, document, ...): its spans are named after it",
  OTEL_SDK_DISABLED: "false: tracing is on while OTEL_EXPORTER_OTLP_ENDPOINT (docex-config) is set",
  SHUTDOWN_TIMEOUT_MS: "20 s: terminationGracePeriodSeconds is derived from it (checked below)",
  GATEWAY_MAX_HEADER_BYTES: "Node's 16 KiB: access tokens are under 1 KiB and the gateway refuses tokens over 8 KiB",
  GATEWAY_UPSTREAM_TIMEOUT_MS: "30 s: the Ingress's proxy timeouts (35 s) are set just above it",
  AUTH_TOTP_ISSUER: "docex: the name authenticator apps show",
  AUTH_ACCOUNT_FAILURE_LIMIT: "brute-force limit of the auth service (its README)",
  AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS: "brute-force limit of the auth service (its README)",
  AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT: "brute-force limit of the auth service (its README)",
  AUTH_LOCKOUT_MAX_SECONDS: "brute-force limit of the auth service (its README)",
  AUTH_ADDRESS_FAILURE_LIMIT: "brute-force limit of the auth service (its README)",
  AUTH_ADDRESS_FAILURE_WINDOW_SECONDS: "brute-force limit of the auth service (its README)",
  AUTH_MAIL_LIMIT_PER_RECIPIENT: "mail limit of the auth service (its README)",
  AUTH_MAIL_LIMIT_PER_ADDRESS: "mail limit of the auth service (its README)",
  AUTH_MAIL_WINDOW_SECONDS: "mail limit of the auth service (its README)",
  AUTH_REFRESH_REUSE_GRACE_SECONDS: "10 s grace for a rotated refresh token presented twice",
  AUTH_SIGNING_KEY_ROTATION_DAYS: "30 days between JWT signing-key rotations",
  INVITATION_TTL_DAYS: "7 days to accept an invitation (membership README)",
  INVITATION_MAX_PENDING: "invitation quota per organization (membership README)",
  INVITATION_MAX_PER_DAY: "invitation quota per organization (membership README)",
  DOCUMENT_MEMBERSHIP_DEADLINE_MS: TUNED_DEFAULT,
  DOCUMENT_PERMISSION_CACHE_MS: TUNED_DEFAULT,
  DOCUMENT_USER_SCHEMA_CACHE_MS: TUNED_DEFAULT,
  DOCUMENT_AUTOMATION_DEADLINE_MS: TUNED_DEFAULT,
  DOCUMENT_MAX_FILE_BYTES: "25 MiB, as API.md promises; the gateway's route limit (26 MiB) is set for it",
  FILE_STORE_URL: "empty: files in the document database (CNPG, backed up with it); s3://bucket/prefix for large installations",
  DOCUMENT_FILE_RETENTION_DAYS: "30 days a deleted document's file is kept (document README)",
  DOCUMENT_FILE_SWEEP_INTERVAL_MS: "hourly retention sweep",
  AUTOMATION_DOCUMENT_DEADLINE_MS: TUNED_DEFAULT,
  AUTOMATION_MEMBERSHIP_DEADLINE_MS: TUNED_DEFAULT,
  AUTOMATION_REGISTER_DEADLINE_MS: TUNED_DEFAULT,
  AUTOMATION_PERMISSION_CACHE_MS: TUNED_DEFAULT,
  LEARNING_DOCUMENT_DEADLINE_MS: TUNED_DEFAULT,
  LEARNING_MEMBERSHIP_DEADLINE_MS: TUNED_DEFAULT,
  LEARNING_PERMISSION_CACHE_MS: TUNED_DEFAULT,
  DOWNSTREAM_DEADLINE_MS: TUNED_DEFAULT,
  PERMISSION_CACHE_MS: TUNED_DEFAULT,
  WEBHOOK_MEMBERSHIP_DEADLINE_MS: TUNED_DEFAULT,
  WEBHOOK_DOCUMENT_DEADLINE_MS: TUNED_DEFAULT,
  WEBHOOK_PERMISSION_CACHE_MS: TUNED_DEFAULT,
  WEBHOOK_DELIVERY_TIMEOUT_MS: "10 s, as API.md promises integrators",
  WEBHOOK_DELIVERY_LEASE_MS: "must exceed the delivery timeout; the default does",
  WEBHOOK_MAX_IN_FLIGHT: "128 requests in flight per replica; scale replicas rather than this",
  WEBHOOK_POLL_INTERVAL_MS: "1 s between looks for due deliveries",
  WEBHOOK_BREAKER_ERROR_PERCENTAGE: "receiver breaker tuning (webhook README)",
  WEBHOOK_BREAKER_VOLUME_THRESHOLD: "receiver breaker tuning (webhook README)",
  WEBHOOK_BREAKER_RESET_MS: "receiver breaker tuning (webhook README)",
  WEBHOOK_CONSUMER_ACK_WAIT_MS: "JetStream redelivery time of the webhook consumer",
};

/** Values that live in Secrets only; placeholders let the schemas check the rest of the config. */
const SECRET_PLACEHOLDERS: Record<string, string> = {
  DATABASE_URL: "postgres://docex:placeholder@postgres:5432/postgres",
  SMTP_URL: "smtp://mail.example.com:587",
  AUTH_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
  WEBHOOK_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString("base64"),
  BOOTSTRAP_OWNER_EMAIL: "owner@example.com",
  BOOTSTRAP_OWNER_PASSWORD: "correct horse battery staple",
};
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
const GRAFANA_DATASOURCE = "${datasource}";
const looksSecret = (name: string) => name in SECRET_PLACEHOLDERS || /(KEY|PASSWORD|SECRET|TOKEN|CREDENTIALS?)$/.test(name);

// ---------------------------------------------------------------------------------------------
// Manifests as plain objects

interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  spec?: unknown;
  data?: Record<string, string>;
  [field: string]: unknown;
}
interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  grpc?: { port: number; service?: string };
  exec?: { command: string[] };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: unknown; fieldRef?: unknown };
}
interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: unknown } };
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
}
interface PodSpec {
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
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    serviceName?: string;
    selector?: LabelSelector;
    template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
  };
}
interface ServiceObject extends K8sObject {
  spec: { selector?: Record<string, string>; clusterIP?: string; ports: { name?: string; port: number; targetPort?: string | number }[] };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const clone = <T>(value: T): T => structuredClone(value);
const idOf = (object: K8sObject) => `${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`;
const WORKLOADS = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);
const isWorkload = (object: K8sObject): object is Workload => WORKLOADS.has(object.kind);
const find = <T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name) as T | undefined;
const ofKind = <T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string) =>
  objects.filter((object) => object.kind === kind) as T[];

function readManifests(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, "utf8")).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    const value = document.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// A kustomize renderer for the features deploy/ uses: resources (files and directories),
// namespace, configMapGenerator without hash suffixes, patches (strategic merge, with or
// without a target, including `$patch: delete`, and JSON 6902), replicas and images.
// When `kubectl kustomize` is installed, a test checks that both render the same objects.

interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}
interface Kustomization {
  namespace?: string;
  resources?: string[];
  configMapGenerator?: {
    name: string;
    files?: string[];
    literals?: string[];
    options?: { disableNameSuffixHash?: boolean; labels?: Record<string, string> };
  }[];
  patches?: { path?: string; patch?: string; target?: PatchTarget }[];
  replicas?: { name: string; count: number }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}
const KUSTOMIZATION_FIELDS = new Set([
  "apiVersion",
  "kind",
  "namespace",
  "resources",
  "configMapGenerator",
  "patches",
  "replicas",
  "images",
]);
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "PersistentVolume",
  "StorageClass",
]);
const REPLICATED = new Set(["Deployment", "StatefulSet", "ReplicaSet"]);
/** patchMergeKey of the Kubernetes lists a patch may touch; other lists are replaced whole. */
const MERGE_KEYS: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  volumes: "name",
  env: "name",
  volumeMounts: "mountPath",
  imagePullSecrets: "name",
  topologySpreadConstraints: "topologyKey",
};

function renderKustomization(dir: string): K8sObject[] {
  const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as Kustomization;
  const unsupported = Object.keys(kustomization).filter((field) => !KUSTOMIZATION_FIELDS.has(field));
  if (unsupported.length > 0) throw new Error(`${dir}: the test's renderer does not implement ${unsupported.join(", ")}`);
  let objects: K8sObject[] = [];
  for (const entry of kustomization.resources ?? []) {
    const resource = path.resolve(dir, entry);
    objects.push(...(statSync(resource).isDirectory() ? renderKustomization(resource) : readManifests(resource)));
  }
  for (const generator of kustomization.configMapGenerator ?? []) {
    if (!generator.options?.disableNameSuffixHash)
      throw new Error(`${dir}: configMapGenerator ${generator.name} needs disableNameSuffixHash`);
    const data: Record<string, string> = {};
    for (const file of generator.files ?? []) {
      const [key = "", source = ""] = file.includes("=") ? file.split("=", 2) : [path.basename(file), file];
      data[key] = readFileSync(path.resolve(dir, source), "utf8");
    }
    for (const literal of generator.literals ?? []) {
      const index = literal.indexOf("=");
      data[literal.slice(0, index)] = literal.slice(index + 1);
    }
    const metadata: Metadata = { name: generator.name };
    if (generator.options.labels) metadata.labels = { ...generator.options.labels };
    objects.push({ apiVersion: "v1", kind: "ConfigMap", metadata, data });
  }
  for (const patch of kustomization.patches ?? []) objects = applyPatch(dir, objects, patch);
  if (kustomization.namespace) {
    for (const object of objects) if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
  }
  for (const { name, count } of kustomization.replicas ?? []) {
    const targets = objects.filter((object) => REPLICATED.has(object.kind) && object.metadata.name === name);
    if (targets.length === 0) throw new Error(`${dir}: replicas names ${name}, which is no Deployment or StatefulSet`);
    for (const target of targets) (target as Workload).spec.replicas = count;
  }
  for (const image of kustomization.images ?? []) {
    for (const container of objects.filter(isWorkload).flatMap((workload) => containersOf(workload.spec.template.spec))) {
      const [, name, tag] = container.image.match(/^([^@]+?)(?::([^:/@]+))?(@.+)?$/) ?? [];
      if (name !== image.name) continue;
      const newTag = image.digest ? `@${image.digest}` : `:${image.newTag ?? tag}`;
      container.image = `${image.newName ?? name}${newTag}`;
    }
  }
  const seen = new Set<string>();
  for (const object of objects) {
    if (seen.has(idOf(object))) throw new Error(`${dir}: ${idOf(object)} is defined twice`);
    seen.add(idOf(object));
  }
  return objects;
}

const containersOf = (pod: PodSpec) => [...(pod.initContainers ?? []), ...pod.containers];

function selectTargets(objects: K8sObject[], target: PatchTarget): K8sObject[] {
  const labelsMatch = (labels: Record<string, string> | undefined, selector: string) =>
    selector.split(",").every((term) => {
      const [key = "", value] = term.split("=").map((part) => part.trim());
      if (term.includes("!=")) throw new Error(`selector ${selector}: only key=value terms are implemented`);
      return value === undefined ? labels?.[key] !== undefined : labels?.[key] === value;
    });
  return objects.filter((object) => {
    const [group, version] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : ["", object.apiVersion];
    return (
      (target.kind === undefined || target.kind === object.kind) &&
      (target.group === undefined || target.group === group) &&
      (target.version === undefined || target.version === version) &&
      (target.name === undefined || new RegExp(`^(?:${target.name})$`).test(object.metadata.name)) &&
      (target.namespace === undefined || target.namespace === object.metadata.namespace) &&
      (target.labelSelector === undefined || labelsMatch(object.metadata.labels, target.labelSelector)) &&
      (target.annotationSelector === undefined || labelsMatch(object.metadata.annotations, target.annotationSelector))
    );
  });
}

function applyPatch(dir: string, objects: K8sObject[], spec: { path?: string; patch?: string; target?: PatchTarget }): K8sObject[] {
  const text = spec.path ? readFileSync(path.resolve(dir, spec.path), "utf8") : (spec.patch ?? "");
  const documents = parseAllDocuments(text)
    .map((document) => document.toJS() as unknown)
    .filter((value) => value !== null);
  const where = `${dir}: patch ${spec.path ?? JSON.stringify(spec.target)}`;
  if (documents.length === 1 && Array.isArray(documents[0])) {
    if (!spec.target) throw new Error(`${where}: a JSON 6902 patch needs a target`);
    const targets = selectTargets(objects, spec.target);
    if (targets.length === 0) throw new Error(`${where} matches nothing`);
    for (const target of targets) applyJsonPatch(target, documents[0] as JsonPatchOperation[], where);
    return objects;
  }
  let result = objects;
  for (const document of documents as K8sObject[]) {
    const targets = spec.target
      ? selectTargets(result, spec.target)
      : result.filter((object) => object.kind === document.kind && object.metadata.name === document.metadata?.name);
    if (targets.length === 0) throw new Error(`${where} matches nothing`);
    if (document.$patch === "delete") {
      result = result.filter((object) => !targets.includes(object));
      continue;
    }
    // With a target, the patch's own kind and name are placeholders.
    const body = spec.target
      ? { ...document, apiVersion: undefined, kind: undefined, metadata: { ...document.metadata, name: undefined } }
      : document;
    result = result.map((object) => (targets.includes(object) ? (strategicMerge(object, body) as K8sObject) : object));
  }
  return result;
}

function strategicMerge(base: unknown, patch: unknown, field?: string): unknown {
  if (isObject(patch)) {
    if (patch.$patch === "replace") {
      const { $patch: _directive, ...rest } = patch;
      return clone(rest);
    }
    if (!isObject(base)) return clone(patch);
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (key === "$patch" || value === undefined) continue;
      if (value === null) delete merged[key];
      else merged[key] = key in merged ? strategicMerge(merged[key], value, key) : clone(value);
    }
    return merged;
  }
  if (Array.isArray(patch) && Array.isArray(base) && field) {
    const mergeKey = field === "ports" ? (isObject(base[0]) && "containerPort" in base[0] ? "containerPort" : "port") : MERGE_KEYS[field];
    if (!mergeKey) return clone(patch);
    // As kustomize orders them: the patch's items first (merged into their originals), then the other originals.
    const keyOf = (item: unknown) => (isObject(item) ? item[mergeKey] : undefined);
    const patched = patch
      .filter((item) => !(isObject(item) && item.$patch === "delete"))
      .map((item) => {
        const original = base.find((existing) => keyOf(existing) === keyOf(item));
        return original === undefined ? clone(item) : strategicMerge(original, item);
      });
    const untouched = base.filter((existing) => !patch.some((item) => keyOf(item) === keyOf(existing))).map((item) => clone(item));
    return [...patched, ...untouched];
  }
  return clone(patch);
}

interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "test";
  path: string;
  value?: unknown;
}

function applyJsonPatch(object: K8sObject, operations: JsonPatchOperation[], where: string): void {
  for (const operation of operations) {
    const keys = operation.path
      .split("/")
      .slice(1)
      .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = keys.pop();
    let parent: unknown = object;
    for (const key of keys) parent = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
    if (last === undefined || (!isObject(parent) && !Array.isArray(parent)))
      throw new Error(`${where}: no ${operation.path} in ${idOf(object)}`);
    const container = parent as Record<string, unknown> & unknown[];
    const exists = Array.isArray(parent) ? Number(last) < parent.length : last in parent;
    switch (operation.op) {
      case "add":
        if (Array.isArray(parent)) parent.splice(last === "-" ? parent.length : Number(last), 0, clone(operation.value));
        else container[last] = clone(operation.value);
        break;
      case "replace":
        if (!exists) throw new Error(`${where}: replace of missing ${operation.path} in ${idOf(object)}`);
        container[last as never] = clone(operation.value) as never;
        break;
      case "remove":
        if (!exists) throw new Error(`${where}: remove of missing ${operation.path} in ${idOf(object)}`);
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete container[last];
        break;
      case "test":
        expect(container[last as never], `${where}: test ${operation.path}`).to.deep.equal(operation.value);
        break;
      default:
        throw new Error(`${where}: op ${(operation as { op: string }).op} is not implemented`);
    }
  }
}

/** `kubectl kustomize` when kubectl with kustomize is on PATH; undefined otherwise. */
function kubectlKustomize(dir: string): K8sObject[] | undefined {
  const help = spawnSync("kubectl", ["kustomize", "--help"], { encoding: "utf8" });
  if (help.error || help.status !== 0) return undefined;
  const result = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout).flatMap((document) => {
    const value = document.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Schemas: kubernetes-models for core objects, @kubernetes-models/prometheus-operator for
// ServiceMonitor and PrometheusRule. Their validators accept unknown fields, so a field name
// that no Kubernetes schema knows (a typo such as `readinesProbe`) is reported separately.

type ModelClass = new (data: unknown) => { validate(): void };

async function modelOf(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  const module = (
    apiVersion === "monitoring.coreos.com/v1"
      ? await import("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1")
      : apiVersion === "cert-manager.io/v1"
        ? await import("@kubernetes-models/cert-manager/cert-manager.io/v1")
        : await import(`kubernetes-models/${apiVersion}`).catch(() => ({}))
  ) as Record<string, ModelClass | undefined>;
  return module[kind];
}

let knownFieldNamesCache: Set<string> | undefined;
function knownFieldNames(): Set<string> {
  if (knownFieldNamesCache) return knownFieldNamesCache;
  const require = createRequire(import.meta.url);
  const dirs = [
    path.join(path.dirname(require.resolve("kubernetes-models/v1")), "../_schemas"),
    path.join(path.dirname(require.resolve("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1")), "../../_schemas"),
    path.join(path.dirname(require.resolve("@kubernetes-models/cert-manager/cert-manager.io/v1")), "../../_schemas"),
  ];
  const names = new Set(["apiVersion", "kind", "metadata"]);
  for (const dir of dirs) {
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".mjs"))) {
      const source = readFileSync(path.join(dir, file), "utf8");
      for (const [, name] of source.matchAll(/\bdata\.([A-Za-z_$][\w$]*)/g)) if (name) names.add(name);
      for (const [, name] of source.matchAll(/missingProperty:"([^"]+)"/g)) if (name) names.add(name);
    }
  }
  knownFieldNamesCache = names;
  return names;
}

/** Maps whose keys are data, not field names. */
const FREE_FORM = new Set([
  "labels",
  "annotations",
  "data",
  "binaryData",
  "stringData",
  "matchLabels",
  "nodeSelector",
  "limits",
  "requests",
]);

function unknownFields(value: unknown, at: string, known: Set<string>, found: string[]): string[] {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) unknownFields(item, `${at}[${index}]`, known, found);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (!known.has(key)) found.push(`${at}.${key}`);
      if (FREE_FORM.has(key)) continue;
      // A Service's selector is a map of labels; everyone else's is a LabelSelector.
      if (key === "selector" && isObject(child) && !("matchLabels" in child) && !("matchExpressions" in child)) continue;
      unknownFields(child, `${at}.${key}`, known, found);
    }
  }
  return found;
}

async function schemaProblems(objects: K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const Model = await modelOf(object.apiVersion, object.kind);
    if (!Model) {
      problems.push(`${idOf(object)}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(clone(object)).validate();
    } catch (error) {
      problems.push(`${idOf(object)}: ${(error as Error).message}`);
    }
    for (const field of unknownFields(object, "", knownFieldNames(), [])) problems.push(`${idOf(object)}: unknown field ${field}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// What the code says: the processes, their ports and the settings their schemas read.

interface ConfigSchema {
  safeParse(input: unknown): {
    success: boolean;
    data?: Record<string, unknown>;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
  def?: { type: string; in?: ConfigSchema };
  shape?: Record<string, ConfigSchema>;
}
interface ProcessFacts {
  name: string;
  http: number;
  grpc: number;
  schema: ConfigSchema;
  /** Every variable the schema reads, and whether it may be absent. */
  settings: Map<string, { optional: boolean }>;
  defaults: Record<string, unknown>;
}

function serviceFolders(): string[] {
  const dir = path.join(root, "services");
  return readdirSync(dir)
    .filter((name) => existsSync(path.join(dir, name, "package.json")))
    .sort();
}

function objectShapeOf(schema: ConfigSchema): Record<string, ConfigSchema> {
  let current = schema;
  while (current.def?.type === "pipe" && current.def.in) current = current.def.in;
  if (!current.shape) throw new Error("the config schema is not a zod object");
  return current.shape;
}

async function loadProcesses(): Promise<ProcessFacts[]> {
  const processes: ProcessFacts[] = [];
  for (const name of ["gateway", ...serviceFolders()]) {
    const module = (await import(`@docex/${name}`).catch((error: Error) => {
      throw new Error(`cannot import @docex/${name} (is it built, and in scripts/package.json's devDependencies?): ${error.message}`);
    })) as Record<string, ConfigSchema | undefined>;
    const schema = name === "gateway" ? module.gatewayConfigSchema : module.configSchema;
    if (!schema) throw new Error(`@docex/${name} exports no ${name === "gateway" ? "gatewayConfigSchema" : "configSchema"}`);
    const shape = objectShapeOf(schema);
    const settings = new Map(Object.entries(shape).map(([key, field]) => [key, { optional: field.safeParse(undefined).success }]));
    const defaults = Object.fromEntries(
      Object.entries(shape).flatMap(([key, field]) => {
        const parsed = field.safeParse(undefined);
        return parsed.success ? [[key, (parsed as { data?: unknown }).data]] : [];
      }),
    );
    const ports = (SERVICE_PORTS as Record<string, { http: number; grpc: number } | undefined>)[name];
    processes.push({ name, http: ports?.http ?? Number.NaN, grpc: ports?.grpc ?? Number.NaN, schema, settings, defaults });
  }
  return processes;
}

/** The container of a process and the environment it gets from ConfigMaps, literals and Secrets. */
function environmentOf(objects: K8sObject[], name: string) {
  const deployment = find<Workload>(objects, "Deployment", name);
  if (!deployment) throw new Error(`no Deployment ${name}`);
  const container = deployment.spec.template.spec.containers.find((candidate) => candidate.name === name);
  if (!container) throw new Error(`Deployment ${name} has no container named ${name}`);
  const fromConfigMaps = new Map<string, string>();
  for (const source of container.envFrom ?? []) {
    if (source.secretRef) throw new Error(`${name}: envFrom a Secret hides which variables it sets; use secretKeyRef per variable`);
    const configMap = source.configMapRef && find(objects, "ConfigMap", source.configMapRef.name);
    if (!configMap) throw new Error(`${name}: envFrom names ConfigMap ${source.configMapRef?.name}, which is not rendered`);
    for (const [key, value] of Object.entries(configMap.data ?? {})) fromConfigMaps.set(key, value);
  }
  const literals = new Map<string, string>();
  const secretRefs = new Map<string, { name: string; key: string; optional?: boolean }>();
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) literals.set(variable.name, variable.value);
    else if (variable.valueFrom?.secretKeyRef) secretRefs.set(variable.name, variable.valueFrom.secretKeyRef);
    else throw new Error(`${name}: ${variable.name} comes from neither a value nor a Secret`);
  }
  const effective: Record<string, string> = {};
  for (const [key, value] of fromConfigMaps) effective[key] = value;
  for (const [key, value] of literals) effective[key] = value;
  for (const [key, ref] of secretRefs) {
    const placeholder = SECRET_PLACEHOLDERS[ref.key];
    if (placeholder === undefined) throw new Error(`${name}: no placeholder for Secret key ${ref.key}; add one to SECRET_PLACEHOLDERS`);
    effective[key] = placeholder;
  }
  return { deployment, container, fromConfigMaps, literals, secretRefs, effective };
}

// ---------------------------------------------------------------------------------------------
// NetworkPolicy semantics, enough to ask "may A open a connection to B on port P?".

interface Endpoint {
  label: string;
  namespace?: string;
  labels?: Record<string, string>;
  ip: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
}
interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyRule {
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
  to?: PolicyPeer[];
  from?: PolicyPeer[];
}
interface NetworkPolicy extends K8sObject {
  spec: { podSelector: LabelSelector; policyTypes?: string[]; ingress?: PolicyRule[]; egress?: PolicyRule[] };
}

function selects(selector: LabelSelector | undefined, labels: Record<string, string> = {}): boolean {
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

function ipv4(address: string): number | undefined {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) return undefined;
  return parts.reduce((sum, part) => sum * 256 + part, 0);
}

function inCidr(address: string, cidr: string): boolean {
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

function mayConnect(policies: NetworkPolicy[], from: Endpoint, to: Endpoint, port: number, protocol = "TCP"): boolean {
  const egress = from.namespace === undefined || allowedBy(policies, from, "Egress", to, to, port, protocol);
  const ingress = to.namespace === undefined || allowedBy(policies, to, "Ingress", from, to, port, protocol);
  return egress && ingress;
}

function podsOf(objects: K8sObject[]): Map<string, Endpoint> {
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

// ---------------------------------------------------------------------------------------------
// PromQL

interface PromqlFacts {
  error?: string;
  metrics: string[];
}

function analysePromql(expression: string): PromqlFacts {
  // Grafana's variables are not PromQL; give them values of the right kind first.
  const query = expression.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m");
  const metrics: string[] = [];
  let error: string | undefined;
  promql.parse(query).iterate({
    enter(node) {
      if (node.type.isError && !error)
        error = `syntax error at ${node.from}: …${query.slice(Math.max(0, node.from - 20), node.from + 20)}…`;
      if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector") metrics.push(query.slice(node.from, node.to));
    },
  });
  return { error, metrics };
}

/** Every metric name the code registers: the kit's (with Node's default metrics) and each service's own. */
async function metricNamesOfTheCode(): Promise<Set<string>> {
  const metrics = new Metrics("kubernetes-test");
  const names = new Set<string>(["up", "scrape_duration_seconds", "scrape_samples_scraped"]);
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${metric.name}${suffix}`);
  }
  const sources = [path.join(root, "gateway/src"), ...serviceFolders().map((name) => path.join(root, "services", name, "src"))];
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : [],
    );
  for (const file of sources.filter(existsSync).flatMap(files)) {
    const source = readFileSync(file, "utf8");
    if (!source.includes('"prom-client"')) continue;
    for (const [, name] of source.matchAll(
      /new (?:Counter|Gauge|Histogram|Summary)\b[^(]*\(\s*\{\s*name:\s*"([a-zA-Z_:][a-zA-Z0-9_:]*)"/g,
    )) {
      if (!name) continue;
      names.add(name);
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
    }
  }
  return names;
}

// ---------------------------------------------------------------------------------------------

describe("Kubernetes manifests (deploy/k8s) and monitoring (deploy/monitoring)", function () {
  this.timeout(60_000);

  const renders = {} as Record<RenderName, K8sObject[]>;
  let monitoring: K8sObject[] = [];
  let processes: ProcessFacts[] = [];
  const processNames = () => processes.map((process) => process.name);
  const serviceNames = () => processNames().filter((name) => name !== "gateway");

  before(async () => {
    for (const [name, dir] of Object.entries(RENDERS)) renders[name as RenderName] = renderKustomization(path.join(k8sDir, dir));
    monitoring = renderKustomization(monitoringDir);
    processes = await loadProcesses();
  });

  describe("rendering", () => {
    it("the test's renderer and `kubectl kustomize` (when installed) produce the same objects for the base, each overlay and monitoring", function () {
      const dirs = [...Object.values(RENDERS).map((dir) => path.join(k8sDir, dir)), monitoringDir];
      const theirs = dirs.map((dir) => kubectlKustomize(dir));
      if (theirs.some((rendered) => rendered === undefined)) this.skip();
      const ours = [...Object.keys(RENDERS).map((name) => renders[name as RenderName]), monitoring];
      dirs.forEach((dir, index) => {
        const byId = (objects: K8sObject[]) => Object.fromEntries(objects.map((object) => [idOf(object), object]));
        const mine = byId(ours[index] ?? []);
        const kustomize = byId(theirs[index] ?? []);
        const differing = [...new Set([...Object.keys(mine), ...Object.keys(kustomize)])].filter(
          (id) => JSON.stringify(sortKeys(mine[id])) !== JSON.stringify(sortKeys(kustomize[id])),
        );
        expect(
          differing,
          `${path.relative(root, dir)}: ${differing.map((id) => `${id}\n  ours:      ${JSON.stringify(sortKeys(mine[id]))}\n  kustomize: ${JSON.stringify(sortKeys(kustomize[id]))}`).join("\n")}`,
        ).to.deep.equal([]);
      });
    });

    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every object validates against its Kubernetes schema and uses only known field names`, async () => {
        expect(renders[name].length).to.be.greaterThan(20);
        const problems = await schemaProblems(renders[name]);
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    it("monitoring: the ServiceMonitor, PrometheusRule and dashboard ConfigMap validate against their schemas", async () => {
      expect(monitoring.map((object) => object.kind).sort()).to.deep.equal(["ConfigMap", "PrometheusRule", "ServiceMonitor"]);
      const problems = await schemaProblems(monitoring);
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("no overlay ships a Secret: secrets are created in the cluster, never given values here", () => {
      for (const objects of [...Object.values(renders), monitoring]) expect(ofKind(objects, "Secret")).to.deep.equal([]);
    });
  });

  describe("processes and ports", () => {
    it("every folder of services/ and the gateway are in the kit's SERVICE_PORTS", () => {
      expect(Object.keys(SERVICE_PORTS).sort()).to.deep.equal(["gateway", ...serviceFolders()].sort());
    });

    it("each process has its own file in base with a Deployment, a Service and a ServiceAccount of its name", () => {
      for (const name of processNames()) {
        const file = path.join(k8sDir, "base", `${name}.yaml`);
        expect(existsSync(file), `deploy/k8s/base/${name}.yaml`).to.equal(true);
        const kinds = readManifests(file)
          .filter((object) => object.metadata.name === name)
          .map((object) => object.kind);
        expect(kinds, `deploy/k8s/base/${name}.yaml`).to.include.members(["Deployment", "Service", "ServiceAccount"]);
      }
      const deployments = ofKind(renders.base, "Deployment").map((object) => object.metadata.name);
      expect(deployments.sort(), "Deployments in base").to.deep.equal([...processNames()].sort());
    });

    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: containers and Services expose the ports of SERVICE_PORTS as http and grpc, and the processes are told to listen there`, () => {
        for (const process of processes) {
          const { deployment, container, effective } = environmentOf(renders[name], process.name);
          const expectedPorts =
            process.name === "gateway"
              ? [["http", process.http]]
              : [
                  ["http", process.http],
                  ["grpc", process.grpc],
                ];
          expect(
            container.ports?.map((port) => [port.name, port.containerPort]),
            `${process.name} container ports`,
          ).to.deep.equal(expectedPorts);
          const service = find<ServiceObject>(renders[name], "Service", process.name);
          expect(service, `Service ${process.name}`).to.not.equal(undefined);
          expect(
            service?.spec.ports.map((port) => [port.name, port.port, port.targetPort]),
            `Service ${process.name} ports`,
          ).to.deep.equal(expectedPorts.map(([portName, number]) => [portName, number, portName]));
          expect(
            selects({ matchLabels: service?.spec.selector }, deployment.spec.template.metadata?.labels),
            `Service ${process.name} selects its pods`,
          ).to.equal(true);
          expect(selects(deployment.spec.selector, deployment.spec.template.metadata?.labels), `${process.name} selector`).to.equal(true);
          expect(deployment.spec.template.spec.serviceAccountName).to.equal(process.name);
          expect(find(renders[name], "ServiceAccount", process.name), `ServiceAccount ${process.name}`).to.not.equal(undefined);
          const parsed = process.schema.safeParse(effective).data ?? {};
          const portVariables: [string, number][] =
            process.name === "gateway"
              ? [["GATEWAY_PORT", process.http]]
              : [
                  ["PORT", process.http],
                  ["GRPC_PORT", process.grpc],
                ];
          for (const [variable, port] of portVariables) expect(parsed[variable], `${process.name} ${variable}`).to.equal(port);
          expect(parsed.HOST, `${process.name} HOST (the code's default 127.0.0.1 is unreachable from other pods)`).to.equal("0.0.0.0");
        }
      });
    }
  });

  describe("probes and shutdown", () => {
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: readiness asks /readyz and liveness /healthz on the http port; services start up on /readyz (gRPC listening)`, () => {
        for (const process of processes) {
          const { container } = environmentOf(renders[name], process.name);
          expect(container.readinessProbe?.httpGet, `${process.name} readiness`).to.deep.equal({ path: "/readyz", port: "http" });
          expect(container.livenessProbe?.httpGet, `${process.name} liveness`).to.deep.equal({ path: "/healthz", port: "http" });
          if (process.name === "gateway") {
            expect(container.startupProbe?.httpGet, "gateway startup").to.deep.equal({ path: "/healthz", port: "http" });
          } else {
            // Not a grpc probe: the kubelet has no client certificate for the mutual-TLS gRPC server. /readyz
            // includes the kit's "grpc" check, so the pod starts up once both servers listen.
            expect(container.startupProbe?.grpc, `${process.name} startup`).to.equal(undefined);
            expect(container.startupProbe?.httpGet, `${process.name} startup`).to.deep.equal({ path: "/readyz", port: "http" });
          }
        }
      });

      it(`${name}: terminationGracePeriodSeconds covers the preStop sleep, SHUTDOWN_TIMEOUT_MS and 5 s to close NATS and Postgres`, () => {
        for (const process of processes) {
          const { deployment, container, effective } = environmentOf(renders[name], process.name);
          const shutdownMs = Number(process.schema.safeParse(effective).data?.SHUTDOWN_TIMEOUT_MS);
          const sleep = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
          expect(sleep, `${process.name} preStop sleep`).to.be.at.least(3);
          expect(deployment.spec.template.spec.terminationGracePeriodSeconds, `${process.name} grace period`).to.be.at.least(
            sleep + shutdownMs / 1000 + 5,
          );
        }
      });
    }

    it("the processes serve those probes: kit's HTTP app answers /healthz, /readyz (503 while draining) and /metrics; its gRPC server answers grpc.health.v1 Check", async () => {
      for (const name of serviceNames()) {
        const source = readFileSync(path.join(root, "services", name, "src/service.ts"), "utf8");
        // infra.httpApp and infra.grpcServer are the kit's createHttpApp and GrpcServer on the service's infrastructure.
        expect(source, `services/${name}/src/service.ts builds kit's HTTP app`).to.match(/\b(createHttpApp|infra\.httpApp)\(/);
        expect(source, `services/${name}/src/service.ts serves gRPC with kit's GrpcServer`).to.match(
          /new GrpcServer\(|\binfra\.grpcServer\(/,
        );
      }
      expect(readFileSync(path.join(root, "gateway/src/app.ts"), "utf8"), "the gateway mounts kit's health routes").to.include(
        "mountOperationalRoutes(app",
      );

      const logger = createLogger("kubernetes-test", "silent");
      const readiness = new Readiness();
      const app = createHttpApp({
        logger,
        metrics: new Metrics("kubernetes-test", { defaultMetrics: false }),
        readiness,
        routes: () => undefined,
      });
      const server = await listen(app, "127.0.0.1", 0);
      const grpcServer = new GrpcServer(logger, { identity: testGrpcIdentity("document") });
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        for (const probePath of ["/healthz", "/readyz", "/metrics"])
          expect((await fetch(`${base}${probePath}`)).status, probePath).to.equal(200);
        readiness.drain();
        expect((await fetch(`${base}/readyz`)).status, "/readyz while shutting down").to.equal(503);
        expect((await fetch(`${base}/healthz`)).status, "/healthz while shutting down").to.equal(200);

        const grpcPort = await grpcServer.listen("127.0.0.1", 0);
        expect(await grpcHealthCheck(grpcPort)).to.equal("SERVING");
      } finally {
        server.close();
        await grpcServer.shutdown(1_000);
      }
    });
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
          const others = ofKind<CertificateObject>(objects, "Certificate").filter((cert) => cert !== certificate);
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

  describe("configuration and secrets", () => {
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every setting a process reads is set in a ConfigMap or from a Secret, or is listed in LEFT_TO_THE_CODE`, () => {
        const problems: string[] = [];
        for (const process of processes) {
          const { fromConfigMaps, literals, secretRefs } = environmentOf(renders[name], process.name);
          for (const [setting, { optional }] of process.settings) {
            const set = fromConfigMaps.has(setting) || literals.has(setting) || secretRefs.has(setting);
            if (set) continue;
            if (!optional) problems.push(`${process.name}: ${setting} has no default and is not set`);
            else if (!(setting in LEFT_TO_THE_CODE))
              problems.push(`${process.name}: ${setting} is read by the code but neither set in deploy/k8s nor listed in LEFT_TO_THE_CODE`);
          }
          const ownConfigMap = find(renders[name], "ConfigMap", `${process.name}-config`);
          for (const key of Object.keys(ownConfigMap?.data ?? {})) {
            if (!process.settings.has(key)) problems.push(`${process.name}-config sets ${key}, which ${process.name} does not read`);
          }
          for (const key of [...literals.keys(), ...secretRefs.keys()]) {
            if (!process.settings.has(key)) problems.push(`${process.name} sets ${key}, which it does not read`);
          }
        }
        for (const key of Object.keys(find(renders[name], "ConfigMap", "docex-config")?.data ?? {})) {
          if (!processes.some((process) => process.settings.has(key))) problems.push(`docex-config sets ${key}, which no process reads`);
        }
        for (const setting of Object.keys(LEFT_TO_THE_CODE)) {
          if (!processes.some((process) => process.settings.has(setting)))
            problems.push(`LEFT_TO_THE_CODE lists ${setting}, which no process reads`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });

      it(`${name}: the configuration of each process passes its own config schema`, () => {
        for (const process of processes) {
          const { effective } = environmentOf(renders[name], process.name);
          const result = process.schema.safeParse(effective);
          const issues = (result.error?.issues ?? []).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
          expect(issues, `${process.name}:\n${issues.join("\n")}`).to.deep.equal([]);
        }
      });

      it(`${name}: secrets come only from the process's own Secret, never from a ConfigMap or a literal`, () => {
        const problems: string[] = [];
        for (const configMap of ofKind(renders[name], "ConfigMap")) {
          for (const key of Object.keys(configMap.data ?? {})) {
            if (looksSecret(key)) problems.push(`ConfigMap ${configMap.metadata.name} holds ${key}`);
          }
        }
        for (const process of processes) {
          const { literals, secretRefs } = environmentOf(renders[name], process.name);
          for (const key of literals.keys()) if (looksSecret(key)) problems.push(`${process.name} gives ${key} a literal value`);
          for (const [key, ref] of secretRefs) {
            if (ref.name !== `${process.name}-secrets`)
              problems.push(`${process.name} reads ${key} from Secret ${ref.name}, not ${process.name}-secrets`);
            if (!process.settings.get(key)?.optional && ref.optional)
              problems.push(`${process.name}: required ${key} is an optional secret reference`);
          }
          for (const setting of process.settings.keys()) {
            if (looksSecret(setting) && !secretRefs.has(setting)) problems.push(`${process.name} reads ${setting} but not from its Secret`);
          }
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    for (const name of ["dev", "production"] as const) {
      it(`${name}: addresses in the configuration name Services and ports that exist (gRPC, HTTP, JWKS, NATS)`, () => {
        const problems: string[] = [];
        const servicePort = (host: string, port: number) =>
          find<ServiceObject>(renders[name], "Service", host)?.spec.ports.find((candidate) => candidate.port === port);
        const jwksPath = new URL(String(processes.find((process) => process.name === "auth")?.defaults.AUTH_JWKS_URL)).pathname;
        for (const process of processes) {
          const { effective } = environmentOf(renders[name], process.name);
          for (const [key, value] of Object.entries(effective)) {
            if (key.endsWith("_GRPC_ADDR")) {
              const [host, port] = value.split(":");
              const callee = key.slice(0, -"_GRPC_ADDR".length).toLowerCase();
              if (host !== callee || servicePort(host, Number(port))?.name !== "grpc") problems.push(`${process.name}: ${key}=${value}`);
            }
            const target = key.replace(/_URL$/, "").toLowerCase();
            if (process.name === "gateway" && key.endsWith("_URL") && serviceNames().includes(target)) {
              const url = new URL(value);
              if (url.hostname !== target || servicePort(url.hostname, Number(url.port))?.name !== "http")
                problems.push(`gateway: ${key}=${value}`);
            }
            if (key === "AUTH_JWKS_URL") {
              const url = new URL(value);
              if (url.hostname !== "auth" || servicePort("auth", Number(url.port))?.name !== "http" || url.pathname !== jwksPath)
                problems.push(`${process.name}: AUTH_JWKS_URL=${value}`);
            }
            if (key === "NATS_URL") {
              const url = new URL(value);
              if (!servicePort(url.hostname, Number(url.port))) problems.push(`${process.name}: NATS_URL=${value}`);
            }
          }
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }
  });

  describe("pods", () => {
    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every pod runs as non-root with seccomp RuntimeDefault, a read-only root filesystem, no capabilities, requests and limits`, () => {
        const problems: string[] = [];
        for (const workload of renders[name].filter(isWorkload)) {
          const pod = workload.spec.template.spec;
          const where = `${workload.kind} ${workload.metadata.name}`;
          if (pod.automountServiceAccountToken !== false) problems.push(`${where}: mounts a service account token`);
          for (const container of containersOf(pod)) {
            const at = `${where} container ${container.name}`;
            const security = container.securityContext ?? {};
            if ((security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) problems.push(`${at}: not runAsNonRoot`);
            if ((security.seccompProfile ?? pod.securityContext?.seccompProfile)?.type !== "RuntimeDefault")
              problems.push(`${at}: seccomp`);
            if (security.readOnlyRootFilesystem !== true) problems.push(`${at}: writable root filesystem`);
            if (security.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation`);
            if (!security.capabilities?.drop?.includes("ALL") || (security.capabilities.add ?? []).length > 0)
              problems.push(`${at}: capabilities`);
            for (const kind of ["requests", "limits"] as const) {
              for (const resource of ["cpu", "memory"]) {
                if (!container.resources?.[kind]?.[resource]) problems.push(`${at}: no ${kind}.${resource}`);
              }
            }
            for (const resource of ["cpu", "memory"]) {
              const request = quantity(container.resources?.requests?.[resource]);
              const limit = quantity(container.resources?.limits?.[resource]);
              if (request > limit) problems.push(`${at}: ${resource} request above its limit`);
            }
          }
        }
        for (const process of processes) {
          const { deployment, container } = environmentOf(renders[name], process.name);
          const tmp = container.volumeMounts?.find((mount) => mount.mountPath === "/tmp");
          const volume = deployment.spec.template.spec.volumes?.find((candidate) => candidate.name === tmp?.name);
          if (!volume?.emptyDir) problems.push(`${process.name}: /tmp is not an emptyDir`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }

    for (const name of ["base", "production"] as const) {
      it(`${name}: gateway, document, webhook and extraction have a PodDisruptionBudget and a HorizontalPodAutoscaler, which alone sets their replicas`, () => {
        for (const process of ["gateway", "document", "webhook", "extraction"]) {
          const deployment = find<Workload>(renders[name], "Deployment", process);
          const labels = deployment?.spec.template.metadata?.labels;
          const budgets = ofKind<K8sObject & { spec: { selector: LabelSelector } }>(renders[name], "PodDisruptionBudget");
          expect(budgets.filter((budget) => selects(budget.spec.selector, labels)).length, `${process} PDB`).to.equal(1);
          const autoscalers = ofKind<K8sObject & { spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number } }>(
            renders[name],
            "HorizontalPodAutoscaler",
          ).filter((hpa) => hpa.spec.scaleTargetRef.kind === "Deployment" && hpa.spec.scaleTargetRef.name === process);
          expect(autoscalers.length, `${process} HPA`).to.equal(1);
          expect(autoscalers[0]?.spec.minReplicas, `${process} HPA minReplicas`).to.be.at.least(2);
          expect(deployment?.spec.replicas, `${process} Deployment replicas (the HPA owns them)`).to.equal(undefined);
        }
      });
    }

    it("dev: one replica each, no autoscalers, one NATS server without a cluster, Postgres in the cluster", () => {
      for (const deployment of ofKind<Workload>(renders.dev, "Deployment"))
        expect(deployment.spec.replicas, deployment.metadata.name).to.equal(1);
      expect(ofKind(renders.dev, "HorizontalPodAutoscaler")).to.deep.equal([]);
      expect(find<Workload>(renders.dev, "StatefulSet", "nats")?.spec.replicas).to.equal(1);
      expect(find(renders.dev, "ConfigMap", "nats-config")?.data?.["nats.conf"]).to.not.match(/cluster\s*\{/);
      expect(find<Workload>(renders.dev, "StatefulSet", "postgres")?.spec.replicas).to.equal(1);
      expect(ofKind(renders.dev, "Job")).to.deep.equal([]);
    });

    it("production: several replicas spread over nodes, registry images, a 3-node NATS cluster whose routes name its servers, no Postgres in the cluster", () => {
      for (const deployment of ofKind<Workload>(renders.production, "Deployment")) {
        const name = deployment.metadata.name;
        const pod = deployment.spec.template.spec;
        if (!["gateway", "document", "webhook", "extraction"].includes(name))
          expect(deployment.spec.replicas, `${name} replicas`).to.be.at.least(2);
        const terms = pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
        expect(
          terms.some(
            ({ podAffinityTerm }) =>
              podAffinityTerm.topologyKey === "kubernetes.io/hostname" &&
              selects(podAffinityTerm.labelSelector, deployment.spec.template.metadata?.labels),
          ),
          `${name} anti-affinity`,
        ).to.equal(true);
        for (const container of containersOf(pod)) expect(container.image, `${name} image`).to.not.match(/^docex\/|:local$/);
      }
      for (const hpa of ofKind<K8sObject & { spec: { minReplicas: number } }>(renders.production, "HorizontalPodAutoscaler")) {
        expect(hpa.spec.minReplicas, `${hpa.metadata.name} minReplicas`).to.be.at.least(3);
      }
      const nats = find<Workload>(renders.production, "StatefulSet", "nats");
      expect(nats?.spec.replicas).to.equal(3);
      const routes = [
        ...(find(renders.production, "ConfigMap", "nats-config")?.data?.["nats.conf"] ?? "").matchAll(/nats:\/\/([^:\s]+):6222/g),
      ].map(([, host]) => host);
      expect(routes).to.deep.equal([0, 1, 2].map((index) => `nats-${index}.${nats?.spec.serviceName}`));
      expect(find(renders.production, "Service", nats?.spec.serviceName ?? "")).to.not.equal(undefined);
      expect(nats?.spec.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey).to.equal(
        "kubernetes.io/hostname",
      );
      expect(renders.production.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "postgres")).to.deep.equal(
        [],
      );
    });

    for (const name of ["dev", "production"] as const) {
      it(`${name}: the services create the JetStream streams with as many replicas as NATS has servers, and no job changes them`, () => {
        const servers = find<Workload>(renders[name], "StatefulSet", "nats")?.spec.replicas;
        expect(servers, "NATS servers").to.be.a("number");
        for (const process of processes.filter((candidate) => candidate.settings.has("NATS_STREAM_REPLICAS"))) {
          const { effective } = environmentOf(renders[name], process.name);
          const parsed = process.schema.safeParse(effective).data ?? {};
          expect(parsed.NATS_STREAM_REPLICAS, `${process.name} NATS_STREAM_REPLICAS`).to.equal(servers);
        }
        expect(ofKind(renders[name], "Job"), "Jobs").to.deep.equal([]);
      });
    }
  });

  describe("migrations", () => {
    /** The entry point of each process's image, from its `svc-<name>` stage of deploy/Dockerfile. */
    const imageCommand = (name: string): string[] | undefined => {
      const dockerfile = readFileSync(path.join(root, "deploy/Dockerfile"), "utf8");
      const stage = dockerfile.split(/^FROM /m).find((part) => part.startsWith(`runtime AS svc-${name}\n`));
      const command = stage?.match(/^CMD (\[.*\])$/m)?.[1];
      return command ? (JSON.parse(command) as string[]) : undefined;
    };
    const withDatabase = () => processes.filter((process) => process.settings.has("DATABASE_URL"));

    it("every service has a database; the gateway has none", () => {
      expect(withDatabase().map((process) => process.name)).to.deep.equal(serviceNames());
    });

    for (const name of Object.keys(RENDERS) as RenderName[]) {
      it(`${name}: every service with a database migrates it in an init container of its own image (MIGRATE_ONLY=true, its DATABASE_URL), and the service does not migrate again`, async () => {
        const { serviceConfigSchema } = await import("@docex/kit");
        const problems: string[] = [];
        for (const process of processes) {
          const { deployment, container, effective, secretRefs } = environmentOf(renders[name], process.name);
          const initContainers = deployment.spec.template.spec.initContainers ?? [];
          if (!process.settings.has("DATABASE_URL")) {
            if (initContainers.length > 0) problems.push(`${process.name}: has no database but init containers`);
            continue;
          }
          const parsed = process.schema.safeParse(effective).data ?? {};
          if (parsed.MIGRATE_ON_START !== false) problems.push(`${process.name}: MIGRATE_ON_START is not false`);
          if (parsed.MIGRATE_ONLY !== false) problems.push(`${process.name}: MIGRATE_ONLY is not false`);
          const migrate = initContainers.find((candidate) => candidate.name === "migrate");
          if (!migrate || initContainers.length !== 1) {
            problems.push(`${process.name}: no single init container named migrate`);
            continue;
          }
          const at = `${process.name} init container migrate`;
          if (migrate.image !== container.image) problems.push(`${at}: image ${migrate.image}, not ${container.image}`);
          const command = imageCommand(process.name);
          if (!command) problems.push(`${process.name}: no CMD in deploy/Dockerfile's svc-${process.name} stage`);
          else if (JSON.stringify(migrate.command) !== JSON.stringify(command))
            problems.push(`${at}: command ${JSON.stringify(migrate.command)}, not the image's ${JSON.stringify(command)}`);
          if (JSON.stringify(migrate.securityContext) !== JSON.stringify(container.securityContext))
            problems.push(`${at}: securityContext differs from the service's`);
          if (name === "base" && JSON.stringify(migrate.resources) !== JSON.stringify(container.resources))
            problems.push(`${at}: resources differ from the service's`);

          const env: Record<string, string> = {};
          for (const source of migrate.envFrom ?? []) {
            const configMap = source.configMapRef && find(renders[name], "ConfigMap", source.configMapRef.name);
            if (!configMap) problems.push(`${at}: envFrom names no rendered ConfigMap`);
            Object.assign(env, configMap?.data ?? {});
          }
          for (const variable of migrate.env ?? []) {
            const ref = variable.valueFrom?.secretKeyRef;
            if (variable.value !== undefined) env[variable.name] = variable.value;
            else if (ref) {
              const own = secretRefs.get(variable.name);
              if (ref.name !== own?.name || ref.key !== own.key || ref.optional)
                problems.push(`${at}: ${variable.name} from ${ref.name}/${ref.key}, not the service's ${own?.name}/${own?.key}`);
              env[variable.name] = SECRET_PLACEHOLDERS[ref.key] ?? "";
            } else problems.push(`${at}: ${variable.name} comes from neither a value nor a Secret`);
          }
          if (!migrate.env?.some((variable) => variable.name === "DATABASE_URL" && variable.valueFrom?.secretKeyRef))
            problems.push(`${at}: DATABASE_URL is not from the service's Secret`);
          // What migrateAndExitIfRequested reads: the settings every service shares, nothing of its own.
          const result = serviceConfigSchema(process.name as Parameters<typeof serviceConfigSchema>[0]).safeParse(env);
          if (!result.success)
            problems.push(`${at}: ${result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
          else if (result.data.MIGRATE_ONLY !== true) problems.push(`${at}: MIGRATE_ONLY is not true`);
          else if (result.data.DATABASE_URL !== effective.DATABASE_URL) problems.push(`${at}: another DATABASE_URL than the service's`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });
    }
  });

  describe("Postgres on CloudNativePG (infra/postgres-cnpg)", () => {
    const cnpgDir = path.join(k8sDir, "infra/postgres-cnpg");
    const CNPG_API = "postgresql.cnpg.io/v1";
    let objects: K8sObject[] = [];
    before(() => {
      objects = renderKustomization(cnpgDir);
    });
    type ClusterObject = K8sObject & {
      spec: {
        instances: number;
        storage?: { size?: string };
        inheritedMetadata?: { labels?: Record<string, string> };
        managed?: { roles?: { name: string; login?: boolean; passwordSecret?: Record<string, unknown> }[] };
        affinity?: { enablePodAntiAffinity?: boolean; topologyKey?: string };
      };
    };
    const cluster = () => {
      const clusters = ofKind<ClusterObject>(objects, "Cluster");
      expect(clusters.length, "Clusters").to.equal(1);
      return clusters[0] as ClusterObject;
    };

    it("renders the same with `kubectl kustomize` (when installed), and its core and prometheus-operator objects validate", async function () {
      const problems = await schemaProblems(objects.filter((object) => object.apiVersion !== CNPG_API));
      expect(problems, problems.join("\n")).to.deep.equal([]);
      const theirs = kubectlKustomize(cnpgDir);
      if (!theirs) this.skip();
      const text = (list: K8sObject[]) => list.map((object) => JSON.stringify(sortKeys(object))).sort();
      expect(text(objects)).to.deep.equal(text(theirs));
    });

    it("a Cluster of at least three instances on separate nodes, with persistent storage and pods the services' NetworkPolicy admits", () => {
      const { apiVersion, metadata, spec } = cluster();
      expect(apiVersion).to.equal(CNPG_API);
      expect(metadata.name).to.match(/^[a-z][a-z0-9-]*$/);
      expect(metadata.labels?.["app.kubernetes.io/part-of"]).to.equal("docex");
      expect(spec.instances).to.be.at.least(3);
      expect(quantity(spec.storage?.size), "storage.size").to.be.at.least(10 * 2 ** 30);
      expect(spec.affinity?.enablePodAntiAffinity).to.equal(true);
      expect(spec.affinity?.topologyKey).to.equal("kubernetes.io/hostname");
      const servicesToPostgres = find<NetworkPolicy>(renders.base, "NetworkPolicy", "services-to-postgres");
      const admitted = servicesToPostgres?.spec.egress?.some((rule) =>
        rule.to?.some((peer) => peer.podSelector && selects(peer.podSelector, spec.inheritedMetadata?.labels)),
      );
      expect(admitted, "services-to-postgres selects the Cluster's pods").to.equal(true);
    });

    it("a role and a database docex_<service> for every service with a database, owned by that role, with passwords only referenced", () => {
      const { metadata, spec } = cluster();
      const services = processes.filter((process) => process.settings.has("DATABASE_URL")).map((process) => process.name);
      const roles = spec.managed?.roles ?? [];
      expect(roles.map((role) => role.name).sort()).to.deep.equal(services.map((service) => `docex_${service}`).sort());
      for (const role of roles) {
        expect(role.login, role.name).to.equal(true);
        expect(Object.keys(role.passwordSecret ?? {}), `${role.name} passwordSecret`).to.deep.equal(["name"]);
      }
      const databases = ofKind<K8sObject & { spec: { name: string; owner: string; cluster: { name: string } } }>(objects, "Database");
      for (const service of services) {
        const defaultName = processes.find((process) => process.name === service)?.defaults.DATABASE_NAME;
        const database = databases.find((candidate) => candidate.spec.name === defaultName);
        expect(database?.apiVersion, `Database ${defaultName}`).to.equal(CNPG_API);
        expect(database?.spec.owner, `owner of ${defaultName}`).to.equal(`docex_${service}`);
        expect(database?.spec.cluster.name).to.equal(metadata.name);
      }
    });

    it("holds no secret: no Secret objects, no password or credentials in any field, no URL with a password", () => {
      expect(ofKind(objects, "Secret")).to.deep.equal([]);
      const problems: string[] = [];
      const walk = (value: unknown, at: string) => {
        if (Array.isArray(value)) {
          for (const [index, item] of value.entries()) walk(item, `${at}[${index}]`);
        } else if (isObject(value))
          for (const [key, child] of Object.entries(value)) {
            if (/password$|^(data|stringData)$|credentials?$/i.test(key) && !isObject(child)) problems.push(`${at}.${key}`);
            walk(child, `${at}.${key}`);
          }
        else if (typeof value === "string" && /:\/\/[^/\s:@]+:[^@\s]+@/.test(value)) problems.push(`${at}: a URL with a password`);
      };
      for (const object of objects) walk(object, idOf(object));
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("Prometheus scrapes every instance's exporter, and the NetworkPolicy admits it, the operator and the services", () => {
      const { metadata } = cluster();
      const monitors = ofKind<K8sObject & { spec: { selector: LabelSelector; podMetricsEndpoints: { port: string }[] } }>(
        objects,
        "PodMonitor",
      );
      const podLabels = { "cnpg.io/cluster": metadata.name, "app.kubernetes.io/component": "postgres" };
      expect(
        monitors.some(
          (monitor) =>
            selects(monitor.spec.selector, podLabels) && monitor.spec.podMetricsEndpoints.some((endpoint) => endpoint.port === "metrics"),
        ),
        "a PodMonitor of the Cluster's pods",
      ).to.equal(true);
      const policies = ofKind<NetworkPolicy>(objects, "NetworkPolicy").map((policy) => ({
        ...policy,
        metadata: { ...policy.metadata, namespace: "docex" },
      }));
      const instance: Endpoint = { label: "a Postgres instance", namespace: "docex", labels: podLabels, ip: "10.244.5.1" };
      const other: Endpoint = { ...instance, label: "another instance", ip: "10.244.5.2" };
      const service: Endpoint = {
        label: "a service",
        namespace: "docex",
        labels: { "app.kubernetes.io/component": "service" },
        ip: "10.244.5.3",
      };
      const gateway: Endpoint = {
        label: "the gateway",
        namespace: "docex",
        labels: { "app.kubernetes.io/component": "gateway" },
        ip: "10.244.5.4",
      };
      const operator: Endpoint = { label: "the operator", namespace: "cnpg-system", labels: {}, ip: "10.244.5.5" };
      const prometheus: Endpoint = { label: "prometheus", namespace: "monitoring", labels: {}, ip: "10.244.5.6" };
      const apiServer: Endpoint = { label: "the Kubernetes API", ip: "10.0.0.1" };
      const cases: [Endpoint, Endpoint, number, boolean][] = [
        [service, instance, 5432, true],
        [gateway, instance, 5432, false],
        [other, instance, 5432, true],
        [operator, instance, 8000, true],
        [prometheus, instance, 9187, true],
        [prometheus, instance, 5432, false],
        [instance, apiServer, 443, true],
        [instance, other, 5432, true],
        [instance, service, 8080, false],
      ];
      const wrong = cases
        .filter(([from, to, port, allowed]) => mayConnect(policies, from, to, port) !== allowed)
        .map(([from, to, port, allowed]) => `${from.label} → ${to.label}:${port} should be ${allowed ? "allowed" : "denied"}`);
      expect(wrong, wrong.join("\n")).to.deep.equal([]);
    });
  });

  describe("network", () => {
    for (const name of ["dev", "production"] as const) {
      it(`${name}: NetworkPolicies let the ingress controller reach the gateway, the gateway the services' HTTP, services each other's gRPC and their Postgres and NATS, only the webhook service the internet, and auth its mail relay and social login issuers`, () => {
        const policies = ofKind<NetworkPolicy>(renders[name], "NetworkPolicy");
        const pods = podsOf(renders[name]);
        const pod = (label: string) => {
          const found = pods.get(label);
          if (!found) throw new Error(`no pod ${label} in ${name}`);
          return found;
        };
        const ingressController: Endpoint = {
          label: "ingress controller",
          namespace: "ingress-nginx",
          labels: { app: "ingress-nginx" },
          ip: "10.244.9.1",
        };
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
          if (process.name !== "webhook") expectations.push([self, receiver, 443, process.name === "auth"]);
          expectations.push([self, privateHost, 587, process.name === "auth"], [self, privateHost, 443, false]);
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

    it("the Ingress sends /api/v2 to the gateway's http port, over TLS", () => {
      const ingresses = ofKind<
        K8sObject & {
          spec: {
            tls?: unknown[];
            rules: {
              http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { name?: string } } } }[] };
            }[];
          };
        }
      >(renders.production, "Ingress");
      expect(ingresses.length).to.equal(1);
      const paths = ingresses[0]?.spec.rules.flatMap((rule) => rule.http.paths) ?? [];
      expect(paths.map((entry) => [entry.path, entry.pathType, entry.backend.service.name, entry.backend.service.port.name])).to.deep.equal(
        [["/api/v2", "Prefix", "gateway", "http"]],
      );
      expect(ingresses[0]?.spec.tls?.length).to.equal(1);
    });
  });

  describe("monitoring", () => {
    const rulesOf = (objects: K8sObject[]) =>
      ofKind<
        K8sObject & {
          spec: {
            groups: { rules: { alert?: string; expr: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }[];
          };
        }
      >(objects, "PrometheusRule").flatMap((rule) => rule.spec.groups.flatMap((group) => group.rules));
    const dashboard = () =>
      JSON.parse(readFileSync(path.join(monitoringDir, "grafana/docex-overview.json"), "utf8")) as {
        panels: { id: number; type: string; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
      };
    const queries = () => [
      ...rulesOf(monitoring).map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
      ...dashboard().panels.flatMap((panel) =>
        (panel.targets ?? []).map((target) => ({ where: `panel ${panel.title}`, expr: target.expr })),
      ),
    ];

    it("the ServiceMonitor scrapes /metrics on the http port of the gateway's and every service's Service, as job docex", () => {
      const monitor = ofKind<
        K8sObject & { spec: { jobLabel: string; selector: LabelSelector; endpoints: { port: string; path: string }[] } }
      >(monitoring, "ServiceMonitor")[0];
      if (!monitor) throw new Error("no ServiceMonitor in deploy/monitoring");
      const selected = ofKind<ServiceObject>(renders.production, "Service").filter((service) =>
        selects(monitor.spec.selector, service.metadata.labels),
      );
      expect(selected.map((service) => service.metadata.name).sort()).to.deep.equal([...processNames()].sort());
      expect(monitor.spec.endpoints).to.deep.include({ port: "http", path: "/metrics", interval: "30s", honorLabels: true });
      for (const service of selected) {
        expect(service.spec.ports.map((port) => port.name)).to.include("http");
        expect(service.metadata.labels?.[monitor.spec.jobLabel], `${service.metadata.name} job label`).to.equal("docex");
      }
    });

    it("every alert and dashboard query parses as PromQL and uses only metrics the code defines", async () => {
      const known = await metricNamesOfTheCode();
      expect(known, "the webhook service's delivery metrics").to.include("webhook_deliveries_due");
      const problems: string[] = [];
      for (const { where, expr } of queries()) {
        const { error, metrics } = analysePromql(expr);
        if (error) problems.push(`${where}: ${error}`);
        if (metrics.length === 0) problems.push(`${where}: names no metric`);
        for (const metric of metrics) if (!known.has(metric)) problems.push(`${where}: ${metric} is not a metric of the code`);
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("the alerts cover the error rate, p99 of PATCH annotations, the delivery backlog, open breakers and outbox lag, each with a severity and a summary", () => {
      const rules = rulesOf(monitoring);
      const uses = (rule: { expr: string }, pattern: RegExp) => pattern.test(rule.expr);
      const required: [string, RegExp][] = [
        ["error rate", /http_request_duration_seconds_count\{[^}]*status_code=~"5\.\."/],
        ["validation p99", /histogram_quantile\(0\.99,[\s\S]*http_request_duration_seconds_bucket\{[^}]*method="PATCH"/],
        ["delivery backlog", /webhook_deliveries_due/],
        ["breaker open", /circuit_breaker_state\{[^}]*\}\)?\s*==\s*2/],
        ["outbox lag", /outbox_pending_events/],
      ];
      for (const [what, pattern] of required)
        expect(
          rules.some((rule) => uses(rule, pattern)),
          what,
        ).to.equal(true);
      for (const rule of rules) {
        expect(rule.alert, rule.expr).to.match(/^Docex[A-Z]\w+$/);
        expect(rule.labels?.severity, `${rule.alert} severity`).to.be.oneOf(["critical", "warning", "info"]);
        expect(rule.annotations?.summary, `${rule.alert} summary`).to.be.a("string");
      }
    });

    it("the validation alert watches the document service's PATCH annotations route, at a latency bucket boundary at or above the validation budget", async () => {
      const routes = readFileSync(path.join(root, "services/document/src/http/routes.ts"), "utf8");
      const api = routes.match(/const API = "([^"]+)"/)?.[1];
      // Mounted with router.patch (Express path) or kit's ApiDescription (OpenAPI path, mounted as its Express form).
      const mounted = routes.match(
        /(?:router\.patch\(\s*|method:\s*"patch",\s*path:\s*)`\$\{API\}(\/documents\/(?::document_id|\{document_id\})\/annotations)`/,
      );
      expect(Boolean(api && mounted), "PATCH annotations in services/document/src/http/routes.ts").to.equal(true);
      // The label kit's HTTP app records: the Express route path.
      const route = `${api}${mounted?.[1]?.replace(/\{(\w+)\}/g, ":$1")}`;
      const rule = rulesOf(monitoring).find(
        (candidate) => candidate.expr.includes('method="PATCH"') && candidate.expr.includes("histogram_quantile(0.99"),
      );
      expect(rule?.expr).to.include(`route="${route}"`).and.to.include('service="document"');
      const threshold = Number(rule?.expr.match(/>\s*([\d.]+)\s*$/)?.[1]);
      const document = processes.find((process) => process.name === "document");
      const budgetMs = Number(document?.defaults.DOCUMENT_VALIDATION_TIMEOUT_MS ?? 200); // API.md's default until the code reads it
      expect(threshold * 1000).to.be.at.least(budgetMs);
      const metrics = new Metrics("kubernetes-test", { defaultMetrics: false });
      metrics.httpDuration.observe({ route, method: "PATCH", status_code: "200" }, 0.001);
      const buckets = (await metrics.httpDuration.get()).values.flatMap((value) => {
        const le = (value.labels as Record<string, string | number | undefined>).le;
        return le === undefined ? [] : [Number(le)];
      });
      expect(buckets, "buckets of http_request_duration_seconds").to.include(threshold);

      const { ROUTES, API_PREFIX } = await import("@docex/gateway");
      const gatewayTemplates = ROUTES.filter((candidate) => candidate.method === "PATCH").map(
        (candidate) => `${API_PREFIX}${candidate.path}`,
      );
      const gatewayPanels = dashboard()
        .panels.flatMap((panel) => panel.targets ?? [])
        .flatMap((target) =>
          [...target.expr.matchAll(/service="gateway", method="PATCH", route="([^"]+)"/g)].map(([, template]) => template),
        );
      expect(gatewayPanels.length).to.be.greaterThan(0);
      for (const template of gatewayPanels) expect(gatewayTemplates, "the gateway's route template").to.include(template);
    });

    it("the dashboard has gateway, validation and delivery rows with unique panel ids on a chosen Prometheus, and its ConfigMap carries the file", () => {
      const { panels } = dashboard();
      const rows = panels.filter((panel) => panel.type === "row").map((panel) => panel.title);
      for (const row of ["Gateway", "Validation", "Delivery"])
        expect(
          rows.some((title) => title.startsWith(row)),
          row,
        ).to.equal(true);
      expect(new Set(panels.map((panel) => panel.id)).size).to.equal(panels.length);
      for (const panel of panels.filter((candidate) => candidate.type !== "row"))
        expect(panel.datasource?.uid, panel.title).to.equal(GRAFANA_DATASOURCE);
      const configMap = find(monitoring, "ConfigMap", "docex-grafana-dashboard");
      expect(configMap?.metadata.labels?.grafana_dashboard).to.equal("1");
      expect(configMap?.data?.["docex-overview.json"]).to.equal(
        readFileSync(path.join(monitoringDir, "grafana/docex-overview.json"), "utf8"),
      );
    });
  });
});

/** The same value with object keys in order, so that two renderings compare as text. */
function sortKeys(value: unknown): unknown {
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
function quantity(text: string | undefined): number {
  if (!text) return Number.NaN;
  const match = String(text).match(/^([\d.]+)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/);
  if (!match) return Number.NaN;
  const factors: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(match[1]) * (match[2] ? (factors[match[2]] ?? Number.NaN) : 1);
}

/** grpc.health.v1.Health/Check with an empty service name, over mutual TLS as another service (the kubelet cannot). */
async function grpcHealthCheck(port: number): Promise<string> {
  const identity = testGrpcIdentity("gateway");
  const Health = grpc.makeGenericClientConstructor(
    {
      Check: {
        path: "/grpc.health.v1.Health/Check",
        requestStream: false,
        responseStream: false,
        requestSerialize: () => Buffer.alloc(0),
        requestDeserialize: (bytes: Buffer) => bytes,
        responseSerialize: (bytes: Buffer) => bytes,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    },
    "Health",
  );
  const client = new Health(`127.0.0.1:${port}`, identity.channelCredentials(), identity.channelOptions("document"));
  try {
    const answer = await new Promise<Buffer>((resolve, reject) => {
      (
        client as unknown as {
          Check: (request: Buffer, options: grpc.CallOptions, callback: (error: Error | null, response: Buffer) => void) => void;
        }
      ).Check(Buffer.alloc(0), { deadline: Date.now() + 5_000 }, (error, response) => (error ? reject(error) : resolve(response)));
    });
    // HealthCheckResponse { ServingStatus status = 1; }: one varint field, absent when UNKNOWN.
    const status = answer.length >= 2 && answer[0] === 0x08 ? (answer[1] ?? 0) : 0;
    return ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"][status] ?? String(status);
  } finally {
    client.close();
  }
}
