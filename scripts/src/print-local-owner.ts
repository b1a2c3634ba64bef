import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres } from "./infrastructure.js";
import { LOCAL_OWNER_EMAIL, shellQuote } from "./local-owner.js";
import { loadLocalSecrets } from "./local-secrets.js";

/**
 * `npm run --silent local-owner`: the local owner's sign-in as shell assignments, for
 * `eval "$(npm run --silent local-owner)"` (the README's quick start). Its password is kept on the database server.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = path.join(root, ".data");
mkdirSync(dataDir, { recursive: true });
const postgres = await startPostgres(dataDir, () => undefined);
try {
  const secrets = await loadLocalSecrets(postgres.url, { legacyFile: path.join(dataDir, "local-secrets.json") });
  process.stdout.write(`export DOCEX_EMAIL=${shellQuote(LOCAL_OWNER_EMAIL)} DOCEX_PASSWORD=${shellQuote(secrets.LOCAL_OWNER_PASSWORD)}\n`);
} finally {
  await postgres.stop();
}
