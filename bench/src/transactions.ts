/**
 * A transaction's own cost: kit's `Sql.transaction` (a pg.Pool's client: BEGIN with its SET LOCALs, the statements,
 * COMMIT) against `sequelize.transaction` with the same statements through `sequelize.query` (what the kit used before
 * issue 19 and issue 41 item 3; its `SET LOCAL` for an asynchronous commit a statement of its own), alternating in the
 * same run. Sequelize is the bench's own baseline here: no service uses it any more.
 *
 *   npm run build && node bench/dist/transactions.js
 *
 * One connection (pool of one), Postgres on this machine. Two shapes: a read of one row by key (the shape of a
 * consumer's claim or a lookup), and an edit committed asynchronously (a `FOR UPDATE` read, an update and an insert:
 * the shape of a validation answer's application). Per transaction: wall time, this process's CPU, and the
 * Postgres backend's CPU (from /proc, in clock ticks, so coarse per round); medians over the rounds.
 * BENCH_TX_ROUNDS (5), BENCH_TX_COUNT (transactions per shape, variant and round; 3,000).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { connectDatabase, databaseUrl, prepared, type Tx } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testDatabaseServerUrl } from "@docex/testkit";
import { QueryTypes, Sequelize, type Transaction } from "sequelize";

const ROUNDS = Number(process.env.BENCH_TX_ROUNDS ?? 5);
const COUNT = Number(process.env.BENCH_TX_COUNT ?? 3000);
const ROWS = 1000;
const TICKS_PER_SECOND = 100;

const database = `docex_bench_tx_${randomBytes(4).toString("hex")}`;
const sql = await connectDatabase({
  serverUrl: testDatabaseServerUrl(),
  database,
  logger: createLogger("bench", "warn"),
  poolMax: 1,
});
const sequelize = new Sequelize(databaseUrl(testDatabaseServerUrl(), database), {
  dialect: "postgres",
  logging: false,
  pool: { max: 1, min: 0, idle: 10_000, acquire: 10_000 },
});

const READ = prepared("SELECT id, version, annotations FROM docs WHERE id = $1");
const READ_FOR_UPDATE = prepared("SELECT id, version, annotations FROM docs WHERE id = $1 FOR UPDATE");
const UPDATE = prepared("UPDATE docs SET version = version + 1, annotations = $2 WHERE id = $1");
const RECORD = prepared("INSERT INTO changes (doc_id, body) VALUES ($1, $2)");

type Shape = "read" | "edit";
type Variant = "sequelize.transaction" | "Sql.transaction";

/** The statements of a shape, in the transaction `tx`. */
async function work(shape: Shape, id: string, tx: Tx): Promise<void> {
  if (shape === "read") {
    await sql.rows(READ, [id], tx);
    return;
  }
  await sql.rows(READ_FOR_UPDATE, [id], tx);
  await sql.run(UPDATE, [id, JSON.stringify([{ key: "total_due", value: "100.00" }])], tx);
  await sql.run(RECORD, [id, JSON.stringify({ source: "validation" })], tx);
}

/** The same statements in Sequelize's transaction through `sequelize.query`, the SET LOCAL a statement of its own. */
async function sequelizeWork(shape: Shape, id: string, transaction: Transaction): Promise<void> {
  if (shape === "read") {
    await sequelize.query(READ.text, { bind: [id], transaction, type: QueryTypes.SELECT });
    return;
  }
  await sequelize.query(READ_FOR_UPDATE.text, { bind: [id], transaction, type: QueryTypes.SELECT });
  await sequelize.query(UPDATE.text, { bind: [id, JSON.stringify([{ key: "total_due", value: "100.00" }])], transaction });
  await sequelize.query(RECORD.text, { bind: [id, JSON.stringify({ source: "validation" })], transaction });
}

function viaSequelize(shape: Shape, id: string): Promise<void> {
  return sequelize.transaction(async (transaction) => {
    if (shape === "edit") await sequelize.query("SET LOCAL synchronous_commit TO off", { transaction });
    await sequelizeWork(shape, id, transaction);
  });
}

function viaSql(shape: Shape, id: string): Promise<void> {
  return sql.transaction((tx) => work(shape, id, tx), { asyncCommit: shape === "edit" });
}

function backendTicks(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

interface Sample {
  wallUs: number;
  cpuUs: number;
  backendUs: number;
}

async function round(shape: Shape, variant: Variant, ids: string[], backend: number): Promise<Sample> {
  const run = variant === "Sql.transaction" ? viaSql : viaSequelize;
  const ticks = backendTicks(backend);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let n = 0; n < COUNT; n += 1) await run(shape, ids[n % ids.length]!);
  const wallUs = ((performance.now() - started) * 1000) / COUNT;
  const used = process.cpuUsage(cpu);
  const backendUs = ((backendTicks(backend) - ticks) * 1e6) / TICKS_PER_SECOND / COUNT;
  return { wallUs, cpuUs: (used.user + used.system) / COUNT, backendUs };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

try {
  await sql.run(`CREATE TABLE docs (id uuid PRIMARY KEY, version int NOT NULL, annotations jsonb NOT NULL);
                 CREATE TABLE changes (seq bigserial PRIMARY KEY, doc_id uuid NOT NULL, body jsonb NOT NULL)`);
  const ids = Array.from({ length: ROWS }, () => randomUUID());
  await sql.run("INSERT INTO docs SELECT unnest($1::uuid[]), 1, '[]'", [ids]);
  await sql.run("ANALYZE docs");
  // Each variant's pool has one connection, which serves all its transactions: its backend is the one measured.
  const backends: Record<Variant, number> = {
    "Sql.transaction": (await sql.one<{ pid: number }>("SELECT pg_backend_pid() AS pid"))!.pid,
    "sequelize.transaction": ((await sequelize.query("SELECT pg_backend_pid() AS pid", { plain: true })) as { pid: number }).pid,
  };

  const samples = new Map<string, Sample[]>();
  const shapes: Shape[] = ["read", "edit"];
  const variants: Variant[] = ["sequelize.transaction", "Sql.transaction"];
  // A warm-up round of each, not counted: prepared statements, JIT.
  for (const shape of shapes) for (const variant of variants) await round(shape, variant, ids, backends[variant]);
  for (let r = 0; r < ROUNDS; r += 1) {
    for (const shape of shapes) {
      // Alternating which goes first, so that neither always follows the other.
      for (const variant of r % 2 ? [...variants].reverse() : variants) {
        const key = `${shape}|${variant}`;
        samples.set(key, [...(samples.get(key) ?? []), await round(shape, variant, ids, backends[variant])]);
      }
    }
  }

  console.log("## transactions\n");
  console.log(
    `One connection, Postgres on this machine; ${COUNT.toLocaleString("en")} transactions per shape, variant and round, ${ROUNDS} rounds`,
  );
  console.log(
    `alternating; medians over the rounds. Node ${process.version}, ${cpus().length} CPUs, load average (1 min) ${loadavg()[0]!.toFixed(1)}.`,
  );
  console.log("The backend's CPU is read from /proc in clock ticks (10 ms), so it is coarse per round.\n");
  console.log("| shape | variant | wall µs | this process's CPU µs | backend CPU µs |");
  console.log("|---|---|---:|---:|---:|");
  const medians = new Map<string, Sample>();
  for (const shape of shapes) {
    for (const variant of variants) {
      const taken = samples.get(`${shape}|${variant}`)!;
      const sample = {
        wallUs: median(taken.map((each) => each.wallUs)),
        cpuUs: median(taken.map((each) => each.cpuUs)),
        backendUs: median(taken.map((each) => each.backendUs)),
      };
      medians.set(`${shape}|${variant}`, sample);
      const label = shape === "read" ? "read of one row by key" : "edit, asynchronous commit (FOR UPDATE, UPDATE, INSERT)";
      console.log(`| ${label} | ${variant} | ${sample.wallUs.toFixed(0)} | ${sample.cpuUs.toFixed(0)} | ${sample.backendUs.toFixed(0)} |`);
    }
  }
  console.log("");
  for (const shape of shapes) {
    const before = medians.get(`${shape}|sequelize.transaction`)!;
    const now = medians.get(`${shape}|Sql.transaction`)!;
    const ratio = (key: keyof Sample) => (now[key] / before[key]).toFixed(2);
    console.log(
      `- ${shape === "read" ? "a read" : "an edit"}: Sql.transaction ÷ sequelize.transaction: **${ratio("wallUs")}×** wall, ${ratio("cpuUs")}× this process's CPU, ${ratio("backendUs")}× the backend's`,
    );
  }
} finally {
  await sequelize.close();
  await sql.close();
  await dropDatabase(database);
}
