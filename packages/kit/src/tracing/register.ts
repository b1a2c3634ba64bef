/**
 * The first module of every docex process: `node --import @docex/kit/tracing/register <main.js>`. With tracing
 * on (tracingSettingsFrom), it installs the import hooks the instrumentations need before the application's
 * modules load (ESM imports are bound before any of the application's code runs) and starts the SDK. With
 * tracing off it loads nothing more and hooks nothing.
 */
import { readFileSync } from "node:fs";
import { register as registerHooks } from "node:module";
import path from "node:path";
import { isMainThread } from "node:worker_threads";
import { tracingSettingsFrom } from "./settings.js";

/** The service a process runs: the name of the package of its main script, without the scope (`@docex/document` → `document`). */
function serviceNameOfMain(): string {
  let dir = path.dirname(path.resolve(process.argv[1] ?? "."));
  for (let depth = 0; depth < 5; depth++) {
    try {
      const { name } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string };
      if (name) return name.replace(/^@[^/]+\//, "");
    } catch {}
    dir = path.dirname(dir);
  }
  return "docex";
}

// Worker threads (extraction's readers) inherit the process's --import: they carry no request of their own, and a
// second SDK in each would only export nothing at a cost.
const settings = isMainThread ? tracingSettingsFrom(process.env, serviceNameOfMain()) : undefined;
if (settings) {
  const { INSTRUMENTED_MODULES, startTracing } = await import("./sdk.js");
  const hooks = await import("import-in-the-middle/register-hooks.mjs");
  if (hooks.supportsSyncHooks()) hooks.register({ include: INSTRUMENTED_MODULES });
  else registerHooks("@opentelemetry/instrumentation/hook.mjs", import.meta.url);
  startTracing(settings);
}
