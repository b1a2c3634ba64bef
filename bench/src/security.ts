/**
 * Security benchmark (issue 24): the CPU that a crafted Authorization header costs, the old regex against the
 * one-pass parser in the same run, and the peak memory a 50 MB brotli bomb costs a service, an inflating JSON
 * parser (what express.json did by default) against kit's createHttpApp (415 before reading).
 *
 *   npm run build && node bench/dist/security.js
 *
 * In-process and bounded: a handful of parses and two requests. The memory figures are growth of the process's
 * peak RSS (getrusage maxrss), kit's app measured first so the baseline's growth does not hide it.
 */
import { brotliCompressSync, constants as zlib } from "node:zlib";
import { readBearerToken } from "@docex/kit/auth";
import { createHttpApp, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { closeHttp, listen } from "@docex/kit/runtime";
import express from "express";

/** The regex kit used before (commit 1d708d9), kept here as the baseline. */
const OLD_BEARER = /^Bearer\s+([A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.?[A-Za-z0-9\-_.+/=]*)\s*$/i;

const cpuMs = (call: () => void) => {
  const before = process.cpuUsage();
  call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

console.log("## security\n");
console.log("Crafted `Authorization: Bearer a.aaaa…a!` headers (a run the regex can split many ways, then a character that");
console.log("fails it), parsed once each in this process; CPU from process.cpuUsage around the call.\n");
console.log("| header | old regex CPU ms | one-pass parser CPU ms | parser's answer |");
console.log("|---|---:|---:|---|");
let headline = { old: 0, now: 0 };
for (const kib of [8, 16, 64]) {
  const header = `Bearer a.${"a".repeat(kib * 1024)}!`;
  readBearerToken(header);
  const now = cpuMs(() => readBearerToken(header));
  const old = cpuMs(() => OLD_BEARER.exec(header));
  const answer = readBearerToken(header);
  console.log(`| ${kib} KiB | ${old.toFixed(1)} | ${now.toFixed(3)} | ${"token" in answer ? "token" : answer.problem} |`);
  if (kib === 64) headline = { old, now };
}

// The register upload's shape, ~50 MB of items, brotli-compressed.
const items = 3_500_000;
const json = `[{"queue_id":"q","method":"replace","name":"bomb","items":[${'{"value":"a"},'.repeat(items - 1)}{"value":"a"}]}]`;
const bomb = brotliCompressSync(Buffer.from(json), { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_LGWIN]: 24 } });
const inflatedMb = Buffer.byteLength(json) / 1e6;

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

async function post(url: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "content-encoding": "br", authorization: "Bearer x.y.z" },
    body: bomb,
  });
  await response.arrayBuffer();
  return response.status;
}

async function measure(app: express.Express): Promise<{ status: number; growthMb: number }> {
  const server = await listen(app, "127.0.0.1", 0);
  const { port } = server.address() as { port: number };
  global.gc?.();
  const before = peakRssMb();
  const status = await post(`http://127.0.0.1:${port}/api/v2/registers`);
  const growthMb = peakRssMb() - before;
  await closeHttp(server, 1_000);
  return { status, growthMb };
}

const kitApp = createHttpApp({
  logger: createLogger("bench", "silent"),
  metrics: new Metrics("bench", { defaultMetrics: false }),
  readiness: new Readiness(),
  bodyLimits: [{ method: "POST", path: /^\/api\/v2\/registers$/, limit: "50mb", public: true }],
  routes: (router) =>
    router.post("/api/v2/registers", (req, res) => void res.status(201).json({ n: Array.isArray(req.body) ? req.body.length : 0 })),
});
const after = await measure(kitApp);

const plain = express();
plain.use(express.json({ limit: "50mb" }));
plain.post("/api/v2/registers", (req, res) => {
  res.status(201).json({ n: Array.isArray(req.body) ? req.body.length : 0 });
});
const before = await measure(plain);

console.log(
  `\nA ${bomb.length}-byte brotli body of the register upload's shape (${items.toLocaleString("en")} items, ${inflatedMb.toFixed(1)} MB inflated),`,
);
console.log("POSTed once to each app in this process (the 50 MiB limit of POST /registers, no token check in either, so the");
console.log("figures show the parser alone); growth of the process's peak RSS:\n");
console.log("| app | answer | peak RSS growth MB |");
console.log("|---|---:|---:|");
console.log(`| before: express.json, inflating (its default) | ${before.status} | ${before.growthMb.toFixed(1)} |`);
console.log(`| after: kit's createHttpApp (415 before reading) | ${after.status} | ${after.growthMb.toFixed(1)} |`);
console.log(
  `\n- CPU to parse a 64 KiB crafted Authorization header: **${headline.now.toFixed(3)} ms** (old regex: ${headline.old.toFixed(0)} ms); ` +
    `brotli bomb peak RSS growth: **${after.growthMb.toFixed(1)} MB** (inflating parser: ${before.growthMb.toFixed(0)} MB)`,
);
