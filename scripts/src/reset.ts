import { mkdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { startPostgres } from "./infrastructure.js";
import { databasesInUse, dropDatabases, existingDatabases, isOnThisMachine, stackDatabases } from "./local-reset.js";
import { LOCAL_METADATA_DATABASE } from "./local-secrets.js";

/**
 * `npm run reset [-- --yes]`: deletes the databases of the local stack (`docex_<service>`, or those of
 * STACK_NAMESPACE) after saying which and asking. The local secrets (`docex_local`) stay: the next `npm start`
 * seals its fresh data with them. Never against a server on another machine, nor with NODE_ENV=production.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const say = (message: string) => process.stdout.write(`[reset] ${message}\n`);

async function main(): Promise<number> {
  if (process.env.NODE_ENV === "production") {
    say("NODE_ENV is production: npm run reset only resets a local development stack.");
    return 1;
  }
  const dataDir = path.join(root, ".data");
  mkdirSync(dataDir, { recursive: true });
  const postgres = await startPostgres(dataDir, say);
  try {
    if (!isOnThisMachine(postgres.url)) {
      say(`DATABASE_URL points at ${new URL(postgres.url).host}, not at this machine: npm run reset only resets a local stack.`);
      return 1;
    }
    const found = await existingDatabases(postgres.url, stackDatabases(process.env.STACK_NAMESPACE));
    if (found.length === 0) {
      say("this stack has no databases on the server: nothing to reset.");
      return 0;
    }
    const inUse = await databasesInUse(
      postgres.url,
      found.map((database) => database.name),
    );
    if (inUse.length > 0) {
      say(`the stack is running (${inUse.join(", ")} in use): stop it first (Ctrl-C where \`npm start\` runs).`);
      return 1;
    }
    say("this deletes the databases of the local stack, and everything in them:");
    for (const database of found) say(`  ${database.name} (${database.size})`);
    say(`the local secrets (${LOCAL_METADATA_DATABASE}) stay; the next \`npm start\` makes the databases again, empty.`);
    if (!process.argv.includes("--yes") && !(await confirmed())) {
      say("nothing deleted.");
      return 1;
    }
    await dropDatabases(
      postgres.url,
      found.map((database) => database.name),
    );
    say(`deleted ${found.length} databases; \`npm start\` starts afresh.`);
    return 0;
  } finally {
    await postgres.stop();
  }
}

async function confirmed(): Promise<boolean> {
  if (!process.stdin.isTTY) {
    say("not asked on a terminal: run `npm run reset -- --yes` to delete them.");
    return false;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await prompt.question("[reset] type `delete` to delete them: ")).trim() === "delete";
  } finally {
    prompt.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
