#!/usr/bin/env node
// Writes docex's OpenAPI document, as a running gateway merges it from the services' route declarations, to
// web/openapi.json, the input of the app's generated API types (`npm run build` runs openapi-typescript on it).
//
//   npm start                                   # in another terminal
//   npm run openapi -w @docex/web               # or: node web/tools/write-openapi.mjs http://127.0.0.1:8080
//
// Refuses a document that lacks a service's part (the gateway names it in `x-docex-missing`), so that a partial
// stack never shrinks the snapshot.
import { writeFileSync } from "node:fs";

const base = (process.argv[2] ?? process.env.DOCEX_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
const response = await fetch(`${base}/api/v2/openapi.json`, { signal: AbortSignal.timeout(15_000) });
if (!response.ok) {
  console.error(`${base}/api/v2/openapi.json answered ${response.status}`);
  process.exit(1);
}
const document = await response.json();
if (document["x-docex-missing"]) {
  console.error(`the gateway could not reach ${document["x-docex-missing"].join(", ")}: start the whole stack and run this again`);
  process.exit(1);
}
const file = new URL("../openapi.json", import.meta.url);
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${Object.keys(document.paths).length} paths to ${file.pathname}`);
