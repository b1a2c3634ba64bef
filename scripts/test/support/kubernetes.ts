// What the Kubernetes tests share: the rendered base and overlays (deploy/k8s) and monitoring
// (deploy/monitoring), the processes of the code with the settings their config schemas read, the
// environment each container gets, and validation against the Kubernetes schemas. No cluster is
// needed: the overlays are rendered by kustomize.ts (and by `kubectl kustomize` too when it is
// installed, which must agree).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_PORTS } from "@docex/kit/config";
import { renderKustomization } from "./kustomize.js";
import { clone, find, idOf, isObject, type K8sObject, type Workload } from "./manifests.js";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const k8sDir = path.join(root, "deploy/k8s");
export const monitoringDir = path.join(root, "deploy/monitoring");
export const RENDERS = { base: "base", dev: "overlays/dev", production: "overlays/production" } as const;
export type RenderName = keyof typeof RENDERS;
export const RENDER_NAMES = Object.keys(RENDERS) as RenderName[];

/**
 * Settings the manifests leave to the code's default, each with the reason. A setting that a
 * process reads and that is neither set in deploy/k8s nor listed here fails the test: set it in
 * the service's ConfigMap (deploy/k8s/base/<service>.yaml) or its Secret, or add it here.
 */
const TUNED_DEFAULT = "a deadline or cache time of a call to another service: the code's default is the tuned value";
export const LEFT_TO_THE_CODE: Record<string, string> = {
  NATS_TOKEN: "a NATS with token auth; deploy/k8s gives each service a user of its own (NATS_USER, NATS_PASSWORD) instead",
  EXTRACTION_TIMEOUT_MS: "60 s per file, then its reader's process group is killed and the document goes to extraction_failed",
  DOCUMENT_UPLOAD_RETRY_AFTER_SECONDS: "5 s: the Retry-After of a 429 for an upload past the in-flight bound",
  DOCUMENT_UPLOAD_SPOOL_DIR: "the pod's /tmp (os.tmpdir()), an emptyDir sized for DOCUMENT_MAX_CONCURRENT_UPLOADS in document.yaml",
  DOCUMENT_QUOTA_STORED_BYTES: "10 GiB stored per organization unless its owner raises it (document README)",
  DOCUMENT_QUOTA_STORED_BYTES_MAX: "100 GiB: the most an owner may raise the stored-bytes quota to",
  DOCUMENT_QUOTA_UPLOADS_PER_MINUTE: "600 uploads a minute per organization unless its owner raises it",
  DOCUMENT_QUOTA_UPLOADS_PER_MINUTE_MAX: "6,000: the most an owner may raise the per-minute quota to",
  DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH: "50,000 documents a calendar month per organization unless its owner raises it",
  DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH_MAX: "500,000: the most an owner may raise the monthly quota to",
  EXTRACTION_MAX_READS: "3 reads started of one file (each stopping the service) before it is given up with extraction_failed",
  EXTRACTION_MAX_PAGES: "20 PDF pages read from the text layer",
  EXTRACTION_OCR_PAGES: "10 pages OCRed per scan (0 turns OCR off)",
  EXTRACTION_MIN_CONFIDENCE: "70 %: a value read from a page below it is left empty, fitted on labelled invoices (extraction DECISIONS)",
  EXTRACTION_OCR_TIMEOUT_MS: "30 s for one OCR run",
  EXTRACTION_MAX_FILE_BYTES: "64 MiB read from document at most",
  EXTRACTION_DOCUMENT_DEADLINE_MS: "5 s for GetQueue and RecordExtraction",
  EXTRACTION_READ_DEADLINE_MS: "60 s to stream one file",
  EXTRACTION_CONCURRENCY: "1,000 documents in hand per replica, waiting for a reader in fair order (text first, organizations in turn)",
  EXTRACTION_PAGE_TIMEOUT_MS: "15 s to draw or read one page for the pages API, then 422 page_unreadable",
  EXTRACTION_MEMBERSHIP_DEADLINE_MS: TUNED_DEFAULT,
  EXTRACTION_PERMISSION_CACHE_MS: TUNED_DEFAULT,
  DATABASE_NAME: "docex_<service>: each service's own database on the server that DATABASE_URL names",
  DATABASE_POOL_MAX:
    "10 connections per replica where a service does not set its own; kubernetes-postgres.test.ts keeps every pool within max_connections",
  MIGRATION_LOCK_WAIT_MS: "5 min for another replica's migrations before the init container fails (and is restarted)",
  MIGRATION_DDL_LOCK_TIMEOUT_MS: "10 s for a migration's table lock: a DDL behind a long transaction fails instead of blocking traffic",
  NATS_STREAM: "DOCEX: every service uses the default; only tests change it",
  NATS_SUBJECT_PREFIX: "docex: as NATS_STREAM",
  NATS_TLS_CA_FILE: "unset: plain NATS in base and dev; overlays/production sets it, as NATS there requires TLS",
  GRPC_INSECURE: "false: gRPC is mutual TLS with each service's cert-manager certificate (checked below); never set in a cluster",
  MIGRATE_ONLY: "false: the service serves; only its init container `migrate` sets true (checked below)",
  OTEL_SERVICE_NAME: "the process's own name (gateway, document, ...): its spans are named after it",
  OTEL_SDK_DISABLED: "false: tracing is on while OTEL_EXPORTER_OTLP_ENDPOINT (docex-config) is set",
  SHUTDOWN_TIMEOUT_MS: "20 s: terminationGracePeriodSeconds is derived from it (checked below)",
  GATEWAY_MAX_HEADER_BYTES: "Node's 16 KiB: access tokens are under 1 KiB and the gateway refuses tokens over 8 KiB",
  GATEWAY_UPSTREAM_TIMEOUT_MS:
    "30 s: the edge's wait for the gateway (35 s, components/gateway-api's ServersTransport) is set just above it",
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
  FILE_STORE_URL: "empty: files in the document database; overlays/production sets s3://bucket/prefix from site.yaml",
  AWS_REGION: "unset where files are in Postgres; overlays/production sets it from site.yaml",
  AWS_ENDPOINT_URL_S3: 'unset: AWS\'s own S3; set it for an S3-compatible store (deploy/README.md, "Files in production")',
  AWS_ACCESS_KEY_ID: "unset where files are in Postgres; production reads it from document-secrets when there (optional)",
  AWS_SECRET_ACCESS_KEY: "unset where files are in Postgres; production reads it from document-secrets when there (optional)",
  DOCUMENT_FILE_RETENTION_DAYS: "30 days a deleted document's file is kept (document README)",
  DOCUMENT_FILE_SWEEP_INTERVAL_MS: "hourly retention sweep",
  DOCUMENT_LIFETIME_SWEEP_INTERVAL_MS: "hourly lifetime sweep; lifetimes are days, an hour late purges nothing early",
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
  WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION: "16 of them for one organization's receivers, so one tenant's slow receivers leave the rest",
  WEBHOOK_MAX_PER_ORGANIZATION: "100 webhooks per organization; past it 409 webhook_limit_reached",
  WEBHOOK_POLL_INTERVAL_MS: "1 s between looks for due deliveries",
  WEBHOOK_BREAKER_ERROR_PERCENTAGE: "receiver breaker tuning (webhook README)",
  WEBHOOK_BREAKER_VOLUME_THRESHOLD: "receiver breaker tuning (webhook README)",
  WEBHOOK_BREAKER_RESET_MS: "receiver breaker tuning (webhook README)",
  WEBHOOK_CONSUMER_ACK_WAIT_MS: "JetStream redelivery time of the webhook consumer",
};

/** Values that live in Secrets only; placeholders let the schemas check the rest of the config. */
export const SECRET_PLACEHOLDERS: Record<string, string> = {
  DATABASE_URL: "postgres://docex:placeholder@postgres:5432/postgres",
  NATS_PASSWORD: "placeholder-nats-password",
  SMTP_URL: "smtp://mail.example.com:587",
  AUTH_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
  WEBHOOK_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString("base64"),
  BOOTSTRAP_OWNER_EMAIL: "owner@example.com",
  BOOTSTRAP_OWNER_PASSWORD: "correct horse battery staple",
  AWS_ACCESS_KEY_ID: "AKIAPLACEHOLDER",
  AWS_SECRET_ACCESS_KEY: "placeholder-secret-access-key",
};
export const looksSecret = (name: string) => name in SECRET_PLACEHOLDERS || /(KEY|PASSWORD|SECRET|TOKEN|CREDENTIALS?)$/.test(name);

// ---------------------------------------------------------------------------------------------
// Schemas: kubernetes-models for core objects, @kubernetes-models/prometheus-operator for
// ServiceMonitor and PrometheusRule, @kubernetes-models/cert-manager, @kubernetes-models/gateway-api
// (Gateway, HTTPRoute), @kubernetes-models/traefik (the edge's Middleware, TraefikService,
// ServersTransport) and @kubernetes-models/keda (components/keda-backlog's ScaledObjects). Their validators accept unknown fields, so a field name that no Kubernetes
// schema knows (a typo such as `readinesProbe`) is reported separately.

type ModelClass = new (data: unknown) => { validate(): void };

async function modelOf(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  const module = (
    apiVersion === "monitoring.coreos.com/v1"
      ? await import("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1")
      : apiVersion === "cert-manager.io/v1"
        ? await import("@kubernetes-models/cert-manager/cert-manager.io/v1")
        : apiVersion === "gateway.networking.k8s.io/v1"
          ? await import("@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1")
          : apiVersion === "traefik.io/v1alpha1"
            ? await import("@kubernetes-models/traefik/traefik.io/v1alpha1")
            : apiVersion === "keda.sh/v1alpha1"
              ? await import("@kubernetes-models/keda/keda.sh/v1alpha1")
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
    // Packages that export to `import` only: found where Node would look for them.
    ...["@kubernetes-models/gateway-api", "@kubernetes-models/traefik", "@kubernetes-models/keda"].map((name) => {
      const dir = (require.resolve.paths(name) ?? []).map((modules) => path.join(modules, name)).find((candidate) => existsSync(candidate));
      if (!dir) throw new Error(`${name} is not installed`);
      return path.join(dir, "_schemas");
    }),
  ];
  const names = new Set(["apiVersion", "kind", "metadata"]);
  for (const dir of dirs) {
    for (const file of readdirSync(dir).filter(
      (name) => name.endsWith(".mjs") || (name.endsWith(".js") && !existsSync(path.join(dir, name.replace(/\.js$/, ".mjs")))),
    )) {
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
  // A PodMonitor endpoint's query parameters (the NATS TLS probe's module and target).
  "params",
]);

function unknownFields(value: unknown, at: string, known: Set<string>, found: string[]): string[] {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) unknownFields(item, `${at}[${index}]`, known, found);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (!known.has(key)) found.push(`${at}.${key}`);
      if (FREE_FORM.has(key)) continue;
      // A KEDA trigger's metadata is its scaler's settings, a map of strings.
      if (key === "metadata" && /\.triggers\[\d+\]$/.test(at)) continue;
      // A Service's selector is a map of labels; everyone else's is a LabelSelector.
      if (key === "selector" && isObject(child) && !("matchLabels" in child) && !("matchExpressions" in child)) continue;
      unknownFields(child, `${at}.${key}`, known, found);
    }
  }
  return found;
}

export async function schemaProblems(objects: K8sObject[]): Promise<string[]> {
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

export interface ConfigSchema {
  safeParse(input: unknown): {
    success: boolean;
    data?: Record<string, unknown>;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
  def?: { type: string; in?: ConfigSchema };
  shape?: Record<string, ConfigSchema>;
}
export interface ProcessFacts {
  name: string;
  http: number;
  grpc: number;
  schema: ConfigSchema;
  /** Every variable the schema reads, and whether it may be absent. */
  settings: Map<string, { optional: boolean }>;
  defaults: Record<string, unknown>;
}

export function serviceFolders(): string[] {
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
export function environmentOf(objects: K8sObject[], name: string) {
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

export interface KubernetesFacts {
  renders: Record<RenderName, K8sObject[]>;
  monitoring: K8sObject[];
  processes: ProcessFacts[];
}

let loading: Promise<KubernetesFacts> | undefined;
/** The renders and the processes, loaded once for all the Kubernetes test files of a run. */
export function loadDeployment(): Promise<KubernetesFacts> {
  loading ??= (async () => {
    const renders = {} as Record<RenderName, K8sObject[]>;
    for (const name of RENDER_NAMES) renders[name] = renderKustomization(path.join(k8sDir, RENDERS[name]));
    return { renders, monitoring: renderKustomization(monitoringDir), processes: await loadProcesses() };
  })();
  return loading;
}
