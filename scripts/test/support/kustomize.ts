// A kustomize renderer for the features deploy/ uses: resources (files and directories),
// components (kind: Component, applied to what the resources rendered, as kustomize does), namespace,
// configMapGenerator (literals, files and env files, with kustomize's name hash and the
// references to it), patches (strategic merge, with or without a target, including
// `$patch: delete`, and JSON 6902), replicas, images, replacements and local-config objects.
// When `kubectl kustomize` is installed, a test checks that both render the same objects.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { parse, parseAllDocuments } from "yaml";
import {
  clone,
  containersOf,
  idOf,
  isObject,
  isWorkload,
  type K8sObject,
  type Metadata,
  readManifests,
  sortKeys,
  type Workload,
} from "./manifests.js";

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
  kind?: string;
  namespace?: string;
  resources?: string[];
  components?: string[];
  configMapGenerator?: {
    name: string;
    /** `merge` (or `replace`) a ConfigMap an inner kustomization generated under the same name; default `create`. */
    behavior?: "create" | "merge" | "replace";
    files?: string[];
    literals?: string[];
    envs?: string[];
    options?: { disableNameSuffixHash?: boolean; labels?: Record<string, string>; annotations?: Record<string, string> };
  }[];
  patches?: { path?: string; patch?: string; target?: PatchTarget }[];
  replicas?: { name: string; count: number }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  replacements?: Replacement[];
}
interface Replacement {
  source: { kind?: string; name: string; fieldPath?: string };
  targets: { select: PatchTarget; fieldPaths: string[]; options?: { delimiter?: string; index?: number } }[];
}
const KUSTOMIZATION_FIELDS = new Set([
  "apiVersion",
  "kind",
  "namespace",
  "resources",
  "components",
  "configMapGenerator",
  "patches",
  "replicas",
  "images",
  "replacements",
]);
/** Marks a generated ConfigMap until its name gets kustomize's hash, as kustomize's own internal annotation does. */
const NEEDS_HASH = "test.docex/needs-hash-suffix";
const LOCAL_CONFIG = "config.kubernetes.io/local-config";
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "PersistentVolume",
  "StorageClass",
  "PriorityClass",
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

/**
 * Renders a kustomization; `nested` for one read as another's resource, whose generated names the outer one hashes.
 * A Component (kind: Component) is rendered on top of `inherited`: the objects of the kustomization that lists it.
 */
export function renderKustomization(dir: string, nested = false, inherited?: K8sObject[]): K8sObject[] {
  const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as Kustomization;
  const unsupported = Object.keys(kustomization).filter((field) => !KUSTOMIZATION_FIELDS.has(field));
  if (unsupported.length > 0) throw new Error(`${dir}: the test's renderer does not implement ${unsupported.join(", ")}`);
  const isComponent = kustomization.kind === "Component";
  if (isComponent !== (inherited !== undefined))
    throw new Error(`${dir}: a Component is listed in components:, anything else in resources:`);
  let objects: K8sObject[] = inherited ?? [];
  for (const entry of kustomization.resources ?? []) {
    const resource = path.resolve(dir, entry);
    objects.push(...(statSync(resource).isDirectory() ? renderKustomization(resource, true) : readManifests(resource)));
  }
  // As kustomize: each component, in order, on everything rendered so far, before this kustomization's generators and patches.
  for (const entry of kustomization.components ?? []) objects = renderKustomization(path.resolve(dir, entry), true, objects);
  for (const generator of kustomization.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const file of generator.envs ?? []) {
      for (const line of readFileSync(path.resolve(dir, file), "utf8").split("\n")) {
        const text = line.trim();
        if (text === "" || text.startsWith("#")) continue;
        const index = text.indexOf("=");
        if (index < 1) throw new Error(`${dir}: ${file}: ${line} is not KEY=VALUE`);
        data[text.slice(0, index)] = text.slice(index + 1);
      }
    }
    for (const file of generator.files ?? []) {
      const [key = "", source = ""] = file.includes("=") ? file.split("=", 2) : [path.basename(file), file];
      data[key] = readFileSync(path.resolve(dir, source), "utf8");
    }
    for (const literal of generator.literals ?? []) {
      const index = literal.indexOf("=");
      data[literal.slice(0, index)] = literal.slice(index + 1);
    }
    const metadata: Metadata = { name: generator.name };
    if (generator.options?.labels) metadata.labels = { ...generator.options.labels };
    const annotations = { ...generator.options?.annotations, ...(generator.options?.disableNameSuffixHash ? {} : { [NEEDS_HASH]: "" }) };
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    if (generator.behavior === "merge" || generator.behavior === "replace") {
      const existing = objects.find(
        (object) =>
          object.kind === "ConfigMap" && object.metadata.name === generator.name && object.metadata.annotations?.[NEEDS_HASH] !== undefined,
      );
      if (!existing)
        throw new Error(`${dir}: configMapGenerator ${generator.name} (${generator.behavior}) finds no generated ConfigMap of that name`);
      const merged = generator.behavior === "merge" ? { ...(existing.data ?? {}), ...data } : data;
      if (Object.keys(merged).length > 0) existing.data = merged;
      if (generator.options?.labels) existing.metadata.labels = { ...existing.metadata.labels, ...generator.options.labels };
      continue;
    }
    // As kustomize: no data field when there is nothing in it.
    objects.push({ apiVersion: "v1", kind: "ConfigMap", metadata, ...(Object.keys(data).length > 0 ? { data } : {}) });
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
      // As kustomize (v5): a digest replaces the tag unless newTag is given too, which keeps both (name:tag@digest).
      const reference = image.digest
        ? `${image.newTag ? `:${image.newTag}` : ""}@${image.digest}`
        : `${(image.newTag ?? tag) ? `:${image.newTag ?? tag}` : ""}`;
      container.image = `${image.newName ?? name}${reference}`;
    }
  }
  for (const replacement of kustomization.replacements ?? []) replace(dir, objects, replacement);
  const seen = new Set<string>();
  for (const object of objects) {
    if (seen.has(idOf(object))) throw new Error(`${dir}: ${idOf(object)} is defined twice`);
    seen.add(idOf(object));
  }
  if (nested) return objects;
  hashGeneratedNames(objects);
  return objects.filter((object) => object.metadata.annotations?.[LOCAL_CONFIG] !== "true");
}

/** A dotted field path (`spec.rules.0.host`): the object holding the last field, and that field. */
function fieldAt(object: K8sObject, fieldPath: string, where: string): { parent: Record<string, unknown>; key: string } {
  const keys = fieldPath.split(".");
  const key = keys.pop() ?? "";
  let parent: unknown = object;
  for (const step of keys) parent = Array.isArray(parent) ? parent[Number(step)] : isObject(parent) ? parent[step] : undefined;
  if (!isObject(parent) && !Array.isArray(parent)) throw new Error(`${where}: no ${fieldPath} in ${idOf(object)}`);
  return { parent: parent as Record<string, unknown>, key };
}

/** A field path with `*` for every item of a list (`spec.groups.*.rules.*.annotations.x`), as the concrete paths it names in `object`. */
function expandFieldPath(object: K8sObject, fieldPath: string): string[] {
  let paths: { path: string[]; value: unknown }[] = [{ path: [], value: object }];
  const keys = fieldPath.split(".");
  keys.forEach((key, index) => {
    const last = index === keys.length - 1;
    paths = paths.flatMap(({ path, value }) => {
      if (key !== "*")
        return [
          {
            path: [...path, key],
            value: last ? undefined : isObject(value) ? value[key] : Array.isArray(value) ? value[Number(key)] : undefined,
          },
        ];
      if (!Array.isArray(value)) return [];
      return value.map((item, position) => ({ path: [...path, String(position)], value: item }));
    });
  });
  return paths.map(({ path }) => path.join("."));
}

function replace(dir: string, objects: K8sObject[], { source, targets }: Replacement): void {
  const where = `${dir}: replacement from ${source.kind ?? ""}/${source.name}`;
  const from = objects.filter(
    (object) => object.metadata.name === source.name && (source.kind === undefined || object.kind === source.kind),
  );
  if (from.length !== 1) throw new Error(`${where}: ${from.length} sources`);
  const { parent, key } = fieldAt(from[0] as K8sObject, source.fieldPath ?? "metadata.name", where);
  const value = parent[key];
  if (typeof value !== "string") throw new Error(`${where}: ${source.fieldPath} is not a string`);
  for (const target of targets) {
    const selected = selectTargets(objects, target.select);
    if (selected.length === 0) throw new Error(`${where}: ${JSON.stringify(target.select)} selects nothing`);
    for (const object of selected) {
      for (const fieldPath of target.fieldPaths.flatMap((given) => expandFieldPath(object, given))) {
        const field = fieldAt(object, fieldPath, where);
        const { delimiter, index = 0 } = target.options ?? {};
        if (delimiter === undefined) {
          field.parent[field.key] = value;
          continue;
        }
        const parts = String(field.parent[field.key] ?? "").split(delimiter);
        if (index < 0 || index >= parts.length) throw new Error(`${where}: ${fieldPath} of ${idOf(object)} has no part ${index}`);
        parts[index] = value;
        field.parent[field.key] = parts.join(delimiter);
      }
    }
  }
}

/** encoding/json's text of a value with its object keys sorted, as Go's json.Marshal of a map writes it. */
function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Appends kustomize's hash to each generated ConfigMap's name and renames the references to it:
 * sha256 of {data, kind, name}, whose first ten hex digits have 0, 1, 3, a, e swapped for g, h, k, m, t.
 * kustomize (api/hasher, as of v5) looks the name up as one field "metadata/name", finds none and
 * hashes an empty name: only the data decide the suffix.
 */
function hashGeneratedNames(objects: K8sObject[]): void {
  const renamed = new Map<string, string>();
  for (const object of objects) {
    const annotations = object.metadata.annotations;
    if (object.kind !== "ConfigMap" || annotations?.[NEEDS_HASH] === undefined) continue;
    delete annotations[NEEDS_HASH];
    if (Object.keys(annotations).length === 0) delete object.metadata.annotations;
    const hex = createHash("sha256")
      .update(goJson({ data: object.data ?? "", kind: "ConfigMap", name: "" }))
      .digest("hex");
    const suffix = [...hex.slice(0, 10)].map((char) => ({ "0": "g", "1": "h", "3": "k", a: "m", e: "t" })[char] ?? char).join("");
    renamed.set(`${object.metadata.namespace ?? ""}/${object.metadata.name}`, `${object.metadata.name}-${suffix}`);
    object.metadata.name = `${object.metadata.name}-${suffix}`;
  }
  // Workloads' pods, and a CronJob's (its Job's template).
  const pods = objects.flatMap((object) => {
    if (isWorkload(object)) return [{ object, pod: object.spec.template.spec }];
    const cronJobPod = (object as { spec?: { jobTemplate?: { spec?: { template?: { spec?: Workload["spec"]["template"]["spec"] } } } } })
      .spec?.jobTemplate?.spec?.template?.spec;
    return object.kind === "CronJob" && cronJobPod ? [{ object, pod: cronJobPod }] : [];
  });
  for (const { object: workload, pod } of pods) {
    const rename = (name: string) => renamed.get(`${workload.metadata.namespace ?? ""}/${name}`) ?? name;
    for (const container of containersOf(pod)) {
      for (const source of container.envFrom ?? []) if (source.configMapRef) source.configMapRef.name = rename(source.configMapRef.name);
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.configMapKeyRef as { name: string } | undefined;
        if (ref) ref.name = rename(ref.name);
      }
    }
    for (const volume of pod.volumes ?? []) if (volume.configMap) volume.configMap.name = rename(volume.configMap.name);
  }
}

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
  op: "add" | "remove" | "replace" | "test" | "move";
  path: string;
  from?: string;
  value?: unknown;
}

function applyJsonPatch(object: K8sObject, operations: JsonPatchOperation[], where: string): void {
  for (const given of operations) {
    // RFC 6902's move: a remove of `from`, then an add of its value at `path`.
    if (given.op === "move") {
      if (!given.from) throw new Error(`${where}: move ${given.path} names no from`);
      const keys = given.from
        .split("/")
        .slice(1)
        .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"));
      let value: unknown = object;
      for (const key of keys) value = Array.isArray(value) ? value[Number(key)] : isObject(value) ? value[key] : undefined;
      if (value === undefined) throw new Error(`${where}: move from missing ${given.from} in ${idOf(object)}`);
      applyJsonPatch(
        object,
        [
          { op: "remove", path: given.from },
          { op: "add", path: given.path, value },
        ],
        where,
      );
      continue;
    }
    const operation = given;
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
export function kubectlKustomize(dir: string): K8sObject[] | undefined {
  const help = spawnSync("kubectl", ["kustomize", "--help"], { encoding: "utf8" });
  if (help.error || help.status !== 0) return undefined;
  const result = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout).flatMap((document) => {
    const value = document.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

/**
 * An overlay of `resources` with `components` (directories, absolute), as deploy/README.md says to add an optional
 * component to an overlay: rendered by the test's renderer and, when it is installed, by `kubectl kustomize`.
 */
export function renderWithComponents(
  resources: string[],
  components: string[],
  namespace = "docex",
): { objects: K8sObject[]; kubectl: K8sObject[] | undefined } {
  const dir = mkdtempSync(path.join(tmpdir(), "docex-overlay-"));
  try {
    const list = (dirs: string[]) => dirs.map((target) => `  - ${path.relative(dir, target)}`);
    writeFileSync(
      path.join(dir, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        `namespace: ${namespace}`,
        "resources:",
        ...list(resources),
        "components:",
        ...list(components),
        "",
      ].join("\n"),
    );
    return { objects: renderKustomization(dir), kubectl: kubectlKustomize(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
