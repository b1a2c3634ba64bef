/**
 * Writes src/generated/services/<name>.ts for each .proto, after proto-loader-gen-types has written the message types
 * (`npm run generate` runs both): the service's descriptor, the Handlers, Callers and client types a server and a
 * client use, the client's factory, and every message type re-exported by name. One template for every service, so
 * a new rpc or message needs nothing written by hand here; what a service adds of its own (document's
 * `documentChangeRequest`) stays in src/<name>.ts.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.dirname(new URL(import.meta.url).pathname);
const out = path.join(root, "src/generated/services");
mkdirSync(out, { recursive: true });

for (const file of readdirSync(root).filter((name) => name.endsWith(".proto"))) {
  const text = readFileSync(path.join(root, file), "utf8");
  const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
  const service = /^service\s+(\w+)\s*\{/m.exec(text)?.[1];
  if (!pkg || !service) throw new Error(`${file}: no package or service`);
  const name = file.replace(/\.proto$/, "");
  const dir = pkg.replaceAll(".", "/");
  const messages = readdirSync(path.join(root, "src/generated", dir))
    .map((entry) => entry.replace(/\.ts$/, ""))
    .filter((entry) => entry !== service)
    .sort();
  const streams = [...text.matchAll(/rpc\s+(\w+)\s*\([^)]*\)\s*returns\s*\(\s*stream\s/g)].map((match) => JSON.stringify(match[1]));
  const definition = `${service}Definition`;
  const args = streams.length > 0 ? `${definition}, ${service}Streams` : definition;
  const lines = [
    `// Written by generate-services.mjs from ${file} (npm run generate): do not edit.`,
    `import type { GrpcClientOptions } from "@docex/kit/grpc";`,
    `import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";`,
    `import type { ${definition} } from "../${dir}/${service}.js";`,
    "",
    ...messages.map((message) => `export type { ${message} } from "../${dir}/${message}.js";`),
    "",
    `export const ${name}Service = loadService<${definition}>("${file}", "${pkg}.${service}");`,
    "",
    ...(streams.length > 0
      ? [`/** The server-streaming methods of the ${service} service. */`, `export type ${service}Streams = ${streams.join(" | ")};`]
      : []),
    `export type ${service}Handlers = Handlers<${args}>;`,
    `export type ${service}Callers = Callers<${definition}>;`,
    `export type ${service}Client = PromiseClient<${args}>;`,
    "",
    `export function create${service}Client(address: string, options: GrpcClientOptions): ${service}Client {`,
    `  return createPromiseClient<${args}>(${name}Service, address, options);`,
    "}",
    "",
  ];
  writeFileSync(path.join(out, `${name}.ts`), lines.join("\n"));
}
