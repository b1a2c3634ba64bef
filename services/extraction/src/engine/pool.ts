import { Worker } from "node:worker_threads";
import { DEFAULT_LIMITS, type ExtractionInput, type ExtractionLimits, type ExtractionResult } from "./types.js";

export interface ExtractionPoolOptions {
  /** Worker threads, each extracting one file at a time. */
  size: number;
  /** A file still being read after this long is abandoned and its worker replaced. */
  timeoutMs: number;
  /** Old-generation heap of each worker; a file needing more ends its worker, not the service. */
  maxMemoryMb: number;
  limits?: Partial<ExtractionLimits>;
}

interface Job {
  id: number;
  input: ExtractionInput;
  resolve: (result: ExtractionResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
}

const running = import.meta.url.endsWith(".ts");
const WORKER_URL = new URL(running ? "./worker.ts" : "./worker.js", import.meta.url);

function failed(message: string): ExtractionResult {
  return { format: "unreadable", fields: {}, messages: [{ key: null, message, severity: "warning" }] };
}

/**
 * Runs extractions in worker threads with resourceLimits and a deadline, so a PDF bomb, an endless
 * parse or a runaway allocation costs one worker (replaced at once) and ends in a clear message.
 */
export class ExtractionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly limits: ExtractionLimits;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ExtractionPoolOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (let index = 0; index < Math.max(1, options.size); index += 1) this.slots.push(this.spawn());
  }

  extract(input: ExtractionInput): Promise<ExtractionResult> {
    if (this.closed) return Promise.reject(new Error("the extraction pool is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error("the extraction pool is closed"));
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.timer);
        slot.job?.reject(new Error("the extraction pool is closed"));
        slot.job = undefined;
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    // Under tests the sources run through tsx; the worker registers the same loader before loading itself.
    const entry = running
      ? `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`
      : WORKER_URL;
    const worker = new Worker(entry, {
      eval: running,
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.maxMemoryMb,
        maxYoungGenerationSizeMb: Math.max(16, Math.round(this.options.maxMemoryMb / 8)),
      },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker };
    worker.on("message", (message: { id: number; result?: ExtractionResult; error?: string }) => {
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      if (message.result) job.resolve(message.result);
      else job.reject(new Error(message.error ?? "extraction failed"));
      this.dispatch();
    });
    worker.on("error", (error: Error & { code?: string }) => {
      const tooBig = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      this.replace(
        slot,
        tooBig
          ? failed(`Reading this file needed more than ${this.options.maxMemoryMb} MB of memory; it was stopped.`)
          : failed(`The file could not be read (${error.message}).`),
      );
    });
    worker.on("exit", () => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, failed("The file could not be read (the reader stopped)."));
    });
    worker.unref();
    return slot;
  }

  /** Ends the slot's job with `result`, replaces its worker with a fresh one, and goes on with the queue. */
  private replace(slot: Slot, result: ExtractionResult): void {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    slot.worker.removeAllListeners("exit");
    void slot.worker.terminate();
    job?.resolve(result);
    if (!this.closed) {
      this.slots.push(this.spawn());
      this.dispatch();
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.timer = setTimeout(
        () =>
          this.replace(slot, failed(`Reading this file took longer than ${Math.round(this.options.timeoutMs / 1000)} s; it was stopped.`)),
        this.options.timeoutMs,
      );
      slot.worker.postMessage({ id: job.id, input: job.input, limits: this.limits });
    }
  }
}
