import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres } from "./infrastructure.js";
import { localOwner } from "./local-owner.js";
import { loadLocalSecrets } from "./local-secrets.js";
import { stackPort } from "./stack-environment.js";

/**
 * `npm run --silent inbox -- <queue>`: the inbox address of a queue (UUID or humanized id) of the running stack, read
 * through its gateway as the local owner (or BOOTSTRAP_OWNER_*): what a supplier sends invoices to.
 */
const queue = process.argv[2];
if (!queue) {
  process.stderr.write("usage: npm run --silent inbox -- <queue id or humanized id>\n");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = path.join(root, ".data");
mkdirSync(dataDir, { recursive: true });
const portOffset = Number(process.env.STACK_PORT_OFFSET ?? 0);
const gatewayUrl = `http://127.0.0.1:${Number(process.env.GATEWAY_PORT ?? stackPort("gateway", "http", { portOffset }))}`;

const postgres = await startPostgres(dataDir, () => undefined);
let owner: { email: string; password: string };
try {
  owner = localOwner(process.env, await loadLocalSecrets(postgres.url, { legacyFile: path.join(dataDir, "local-secrets.json") }));
} finally {
  await postgres.stop();
}
const login = await fetch(`${gatewayUrl}/api/v2/auth/login`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(owner),
  signal: AbortSignal.timeout(10_000),
}).catch(() => undefined);
if (login?.status !== 200) {
  process.stderr.write(
    `cannot sign in as ${owner.email} at ${gatewayUrl} (${login?.status ?? "not running"}): is the stack started (npm start)?\n`,
  );
  process.exit(1);
}
const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
const answer = await fetch(`${gatewayUrl}/api/v2/queues/${encodeURIComponent(queue)}`, {
  headers: { authorization: `Bearer ${token}` },
  signal: AbortSignal.timeout(10_000),
});
if (answer.status !== 200) {
  process.stderr.write(
    `queue ${queue}: ${answer.status} (${answer.status === 404 ? "no such queue of the owner's organizations" : "see the stack's log"})\n`,
  );
  process.exit(1);
}
process.stdout.write(`${((await answer.json()) as { data: { inbox_email: string } }).data.inbox_email}\n`);
