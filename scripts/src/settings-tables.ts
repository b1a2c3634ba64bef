/**
 * The settings tables of the services' READMEs, from their config schemas: the variables a service reads beyond the
 * kit's, in the order its schema declares them; the default as the schema gives it for an unset variable; the
 * meaning from the doc comment on the schema's key. A `@default` tag in that comment says the default in words
 * where the value is the machine's (the number of cores) or the service's (its port).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { SERVICE_NAMES, type ServiceName, serviceConfigSchema } from "@docex/kit/config";
import ts from "typescript";

interface FieldSchema {
  safeParse(input: unknown): { success: boolean; data?: unknown };
}
interface ObjectSchema {
  shape?: Record<string, FieldSchema>;
  def?: { type: string; in?: ObjectSchema };
}

/** The object of a config schema, under the pipes a `.transform` or `.superRefine` puts over it. */
export function shapeOf(schema: ObjectSchema): Record<string, FieldSchema> {
  let current = schema;
  while (current.def?.type === "pipe" && current.def.in) current = current.def.in;
  if (!current.shape) throw new Error("the config schema is not a zod object");
  return current.shape;
}

interface Documented {
  meaning: string;
  /** The `@default` tag's words. */
  shownDefault?: string;
}

/** The doc comment of every UPPER_CASE key of an object literal in the files, by key (the first file's first). */
export function documentedKeys(...files: string[]): Map<string, Documented> {
  const keys = new Map<string, Documented>();
  for (const file of files) for (const [key, documented] of documentedKeysOf(file)) if (!keys.get(key)?.meaning) keys.set(key, documented);
  return keys;
}

function documentedKeysOf(file: string): Map<string, Documented> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const keys = new Map<string, Documented>();
  const flatten = (text: string) => text.replace(/\s+/g, " ").trim();
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && /^[A-Z][A-Z0-9_]*$/.test(node.name.getText(source))) {
      const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
      const meaning = flatten(docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "").join(" "));
      const tag = docs.flatMap((doc) => doc.tags ?? []).find((candidate) => candidate.tagName.text === "default");
      const shownDefault = tag ? flatten(ts.getTextOfJSDocComment(tag.comment) ?? "") : undefined;
      // The first documented occurrence: a key also appears undocumented where the config is used (a transform).
      const key = node.name.getText(source);
      if (!keys.get(key)?.meaning) keys.set(key, { meaning, ...(shownDefault ? { shownDefault } : {}) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return keys;
}

const MiB = 1024 * 1024;

/** An unset variable's value as the schema gives it, for a reader (bytes also in MiB). */
function shownDefault(key: string, field: FieldSchema): string {
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return "**required**";
  const value = parsed.data;
  if (value === undefined) return "unset";
  if (typeof value === "number")
    return key.endsWith("_BYTES") && value >= MiB && value % MiB === 0 ? `${value} (${value / MiB} MiB)` : String(value);
  if (value === "") return "empty";
  if (Array.isArray(value)) return value.length === 0 ? "empty" : `\`${value.join(",")}\``;
  if (typeof value === "object") return `\`${JSON.stringify(value)}\``;
  return `\`${String(value)}\``;
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/**
 * The table of `schema`'s keys but `leaveOut`, documented in `files` (the schema's, then those of fields it spreads
 * in). Throws for a key without a doc comment: a setting nobody explained is not one a reader can use.
 */
export function settingsTable(files: string | string[], schema: ObjectSchema, leaveOut: Set<string>): string {
  const sources = Array.isArray(files) ? files : [files];
  const documented = documentedKeys(...sources);
  const shape = shapeOf(schema);
  const keys = Object.keys(shape).filter((key) => !leaveOut.has(key));
  const undocumented = keys.filter((key) => !documented.get(key)?.meaning);
  if (undocumented.length > 0) throw new Error(`${sources.join(", ")}: no doc comment on ${undocumented.join(", ")}`);
  const rows = keys.map((key) => {
    const { meaning, shownDefault: words } = documented.get(key)!;
    return `| \`${key}\` | ${cell(words ?? shownDefault(key, shape[key]!))} | ${cell(meaning)} |\n`;
  });
  return `| variable | default | meaning |\n|---|---|---|\n${rows.join("")}`;
}

/** Where a service's schema is declared: its `src/config.ts`, else its `src/service.ts`. */
export function configSourceOf(root: string, name: ServiceName): string {
  for (const candidate of ["config.ts", "service.ts"]) {
    const file = path.join(root, "services", name, "src", candidate);
    try {
      if (readFileSync(file, "utf8").includes("serviceConfigSchema(")) return file;
    } catch {}
  }
  throw new Error(`services/${name}: no src/config.ts or src/service.ts declares its config schema`);
}

/** Every service's config schema (`configSchema` of its package), by name. */
export async function serviceSchemas(): Promise<Map<ServiceName, ObjectSchema>> {
  const schemas = new Map<ServiceName, ObjectSchema>();
  for (const name of SERVICE_NAMES) {
    const module = (await import(`@docex/${name}`)) as { configSchema?: ObjectSchema };
    if (!module.configSchema) throw new Error(`@docex/${name} exports no configSchema`);
    schemas.set(name, module.configSchema);
  }
  return schemas;
}

/** The gateway's schema (`gatewayConfigSchema` of @docex/gateway). */
export async function gatewaySchema(): Promise<ObjectSchema> {
  const module = (await import("@docex/gateway")) as { gatewayConfigSchema?: ObjectSchema };
  if (!module.gatewayConfigSchema) throw new Error("@docex/gateway exports no gatewayConfigSchema");
  return module.gatewayConfigSchema;
}

/** The kit's schema (as one service reads it: its port and database are given in words by `@default` tags). */
export const kitSchema = (): ObjectSchema => serviceConfigSchema(SERVICE_NAMES[0]!) as ObjectSchema;

/** The kit's keys, which each service's README leaves to the kit's. */
export function kitKeys(): Set<string> {
  return new Set(Object.keys(shapeOf(kitSchema())));
}
