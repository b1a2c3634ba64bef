/**
 * Writes what is repeated per process from one list: deploy/k8s's service manifests and per-process lists (from
 * `SERVICE_PORTS`, the kit's config schema and deploy-services.ts), and the settings table of each service's README
 * (from its config schema and the doc comments on its keys, settings-tables.ts). A file is either generated whole or has regions
 * between `# generated: begin <region>` and `# generated: end` (`<!-- … -->` in Markdown); the rest of it is written
 * by hand. generated-files.test.ts fails while a committed file differs from what this writes.
 *
 *   npm run generate                        # rewrites the files
 *   npm run generate -- --check             # lists the files that differ, exits 1 when one does
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SERVICE_NAMES } from "@docex/kit/config";
import {
  baseConfigMaps,
  baseResources,
  cnpgDatabases,
  cnpgRoles,
  composeGatewayDependencies,
  composeGatewayUpstreams,
  composeIdentities,
  composeNatsPasswords,
  composeServices,
  devReplicas,
  drillPasswords,
  drillServices,
  grpcAddresses,
  grpcIdentityCertificates,
  natsPasswordVariables,
  productionDeployments,
  productionImages,
  productionReplicas,
  serviceManifest,
} from "./deploy-manifests.js";
import { deploymentNatsUsersConfig } from "./nats-users.js";
import { configSourceOf, gatewaySchema, kitKeys, kitSchema, serviceSchemas, settingsTable } from "./settings-tables.js";

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface GeneratedFile {
  /** Repository path. */
  file: string;
  text: string;
}

/** `text` with each named region's lines replaced; the markers stay, so does everything around them. */
export function replaceRegions(file: string, text: string, regions: Record<string, string>): string {
  let result = text;
  for (const [region, content] of Object.entries(regions)) {
    const begin = new RegExp(`^[ \\t]*(#|<!--) generated: begin ${region}\\b.*\\n`, "m").exec(result);
    if (!begin) throw new Error(`${file}: no "generated: begin ${region}" marker`);
    const after = begin.index + begin[0].length;
    const end = /^[ \t]*(#|<!--) generated: end\b.*$/m.exec(result.slice(after));
    if (!end) throw new Error(`${file}: region ${region} has no "generated: end" marker`);
    result = result.slice(0, after) + content + result.slice(after + end.index);
  }
  return result;
}

/** Every generated file as it should be, given the repository at `root` (regions are filled into its files). */
export async function generatedFiles(root = repositoryRoot): Promise<GeneratedFile[]> {
  const read = (file: string) => readFileSync(path.join(root, file), "utf8");
  const withRegions = (file: string, regions: Record<string, string>): GeneratedFile => ({
    file,
    text: replaceRegions(file, read(file), regions),
  });
  const production = "deploy/k8s/overlays/production/kustomization.yaml";
  const schemas = await serviceSchemas();
  const kit = kitKeys();
  const kitConfig = path.join(root, "packages/kit/src/config.ts");
  return [
    withRegions("packages/kit/README.md", { settings: settingsTable(kitConfig, kitSchema(), new Set()) }),
    withRegions("gateway/README.md", {
      settings: settingsTable([path.join(root, "gateway/src/config.ts"), kitConfig], await gatewaySchema(), new Set()),
    }),
    ...SERVICE_NAMES.map((name) =>
      withRegions(`services/${name}/README.md`, {
        settings: settingsTable(configSourceOf(root, name), schemas.get(name)!, kit),
      }),
    ),
    ...SERVICE_NAMES.map((name) => ({ file: `deploy/k8s/base/${name}.yaml`, text: serviceManifest(name) })),
    withRegions("deploy/k8s/base/grpc-identity.yaml", { certificates: grpcIdentityCertificates() }),
    withRegions("deploy/k8s/base/kustomization.yaml", { resources: baseResources(), "config-maps": baseConfigMaps() }),
    withRegions("deploy/k8s/base/docex.env", { "grpc-addresses": grpcAddresses() }),
    withRegions("deploy/k8s/overlays/dev/kustomization.yaml", { replicas: devReplicas() }),
    withRegions(production, { images: productionImages(read(production)), replicas: productionReplicas() }),
    { file: "deploy/k8s/overlays/production/deployments.yaml", text: productionDeployments() },
    { file: "deploy/k8s/infra/postgres-cnpg/databases.yaml", text: cnpgDatabases() },
    { file: "deploy/k8s/infra/nats/docex-users.conf", text: deploymentNatsUsersConfig() },
    withRegions("docker-compose.yml", {
      "nats-passwords": composeNatsPasswords(),
      identities: composeIdentities(),
      services: composeServices(),
      dependencies: composeGatewayDependencies(),
      upstreams: composeGatewayUpstreams(),
    }),
    withRegions("deploy/k8s/infra/nats/nats.yaml", { "nats-passwords": natsPasswordVariables() }),
    withRegions("deploy/k8s/infra/postgres-cnpg/cluster.yaml", { roles: cnpgRoles() }),
    withRegions("deploy/k8s/infra/postgres-cnpg/drill-schedule.yaml", { services: drillServices(), passwords: drillPasswords() }),
  ];
}

/** The generated files whose committed text differs. */
export async function staleFiles(root = repositoryRoot): Promise<string[]> {
  return (await generatedFiles(root))
    .filter(({ file, text }) => {
      try {
        return readFileSync(path.join(root, file), "utf8") !== text;
      } catch {
        return true;
      }
    })
    .map(({ file }) => file);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv.includes("--check")) {
    const stale = await staleFiles();
    for (const file of stale) process.stderr.write(`${file} is not what scripts/src/generate.ts writes: run npm run generate\n`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  for (const { file, text } of await generatedFiles()) {
    const target = path.join(repositoryRoot, file);
    let current: string | undefined;
    try {
      current = readFileSync(target, "utf8");
    } catch {}
    if (current === text) continue;
    writeFileSync(target, text);
    process.stdout.write(`wrote ${file}\n`);
  }
}
