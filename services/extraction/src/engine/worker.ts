import { parentPort } from "node:worker_threads";
import { extractInvoice } from "./engine.js";
import type { ExtractionInput, ExtractionLimits } from "./types.js";

/** One extraction per message; the pool terminates this thread when it overruns its time or memory. */
parentPort?.on("message", async (job: { id: number; input: ExtractionInput; limits: ExtractionLimits }) => {
  try {
    const result = await extractInvoice(job.input, job.limits);
    parentPort?.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort?.postMessage({ id: job.id, error: (error as Error).message ?? String(error) });
  }
});
