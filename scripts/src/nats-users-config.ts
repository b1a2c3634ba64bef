/**
 * Writes deploy/k8s/infra/nats/docex-users.conf: nats.conf's users of docex, one per service with the permissions
 * SERVICE_EVENTS gives it (natsAuthorizationConfig), and the operator's. Passwords are not in it: each is a variable
 * NATS reads from its environment, NATS_<SERVICE>_PASSWORD and NATS_OPERATOR_PASSWORD (Secret nats-secrets).
 *
 *   node scripts/dist/nats-users-config.js          # rewrites the file
 *   node scripts/dist/nats-users-config.js --check  # fails when the file is not what SERVICE_EVENTS gives
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deploymentNatsUsersConfig } from "./nats-users.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const file = path.join(root, "deploy/k8s/infra/nats/docex-users.conf");
const expected = deploymentNatsUsersConfig();
if (process.argv.includes("--check")) {
  if (readFileSync(file, "utf8") !== expected) {
    process.stderr.write(`${path.relative(root, file)} is out of date: run node scripts/dist/nats-users-config.js\n`);
    process.exit(1);
  }
} else {
  writeFileSync(file, expected);
  process.stdout.write(`wrote ${path.relative(root, file)}\n`);
}
