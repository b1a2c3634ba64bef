import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { RenderedPage } from "./pages.js";
import type { ReaderJob, ReaderReply, ReaderResults, ReaderTask } from "./reader-process.js";
import {
  DEFAULT_LIMITS,
  type ExtractionInput,
  type ExtractionLimits,
  type ExtractionResult,
  type PageRead,
  type PageWord,
  UnreadableFileError,
} from "./types.js";

export interface ExtractionPoolOptions {
  /** Reading processes, each extracting one file at a time. */
  size: number;
  /** A file still being read after this long is abandoned: its process (and its OCR programs) are killed. */
  timeoutMs: number;
  /** Memory a reading process may take beyond what it holds when it starts; a file needing more costs that process. */
  maxMemoryMb: number;
  limits?: Partial<ExtractionLimits>;
  /** Where each reading process gets a temporary directory of its own (os.tmpdir() by default). */
  tmpRoot?: string;
  /** Told once when a reading process could not cap its own memory (the watchdog is then the only bound). */
  onUncapped?: () => void;
  /** Told when a reader died before it was ready, with the delay before the next one starts. */
  onStartFailed?: (delayMs: number) => void;
  /** The reader's entry point: reader-process.ts beside this file (tests give one that cannot start). */
  readerPath?: string;
}

interface Job {
  id: number;
  task: ReaderTask;
  resolve: (result: ReaderResults[ReaderTask["kind"]]) => void;
  reject: (error: Error) => void;
}

/** A reader was stopped while it had the file (memory, time, a crash): the message says which, for the user. */
export class ReaderStoppedError extends Error {}

interface Reader {
  child: ChildProcess;
  /** The reader's temporary directory (its TMPDIR): OCR's rasterized pages; removed with the reader. */
  tmpDir: string;
  /** Started and measured: it may take a file. */
  ready: boolean;
  /** Resident memory once started, in bytes: the watchdog's cap counts from here. */
  baseRss: number;
  job?: Job;
  deadline?: NodeJS.Timeout;
  watchdog?: NodeJS.Timeout;
  /** The end of the reader's stderr, where V8 says it ran out of memory. */
  stderrTail: string;
  ended: boolean;
  /** Its memory is capped by the kernel (RLIMIT_DATA), as it said when ready. */
  capped?: boolean;
}

const running = import.meta.url.endsWith(".ts");
const READER_PATH = new URL(running ? "./reader-process.ts" : "./reader-process.js", import.meta.url).pathname;
const TMP_PREFIX = "docex-reader-";
/**
 * Names this process's reader directories: shared by its pools (extraction's and the pages API's), so that one pool's
 * sweep never takes another's directories for those of an earlier run.
 */
const PROCESS_OWNER = `${process.pid}-${randomBytes(4).toString("hex")}`;
let nextReader = 1;
/** How often a reader's resident memory is looked at while it reads. */
const WATCH_INTERVAL_MS = 50;
const MEMORY_SIGNS = /out of memory|allocation failed|heap limit|Cannot allocate memory|ENOMEM/i;
const CRASH_SIGNALS = new Set(["SIGSEGV", "SIGBUS", "SIGABRT", "SIGTRAP", "SIGILL"]);

/** The variables a reader runs with: none of the service's (database URL, NATS token, keys); only what programs need. */
function readerEnvironment(tmpDir: string, capBytes: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    TMPDIR: tmpDir,
    HOME: tmpDir,
    LANG: "C.UTF-8",
    // One thread per tesseract run: the pool already runs several readers side by side.
    OMP_THREAD_LIMIT: "1",
    DOCEX_READER_MEMORY_BYTES: String(capBytes),
  };
  if (process.env.TESSDATA_PREFIX) env.TESSDATA_PREFIX = process.env.TESSDATA_PREFIX;
  if (process.env.NODE_ENV) env.NODE_ENV = process.env.NODE_ENV;
  return env;
}

/** Resident bytes of a process and its children (the OCR programs a reader runs); undefined without /proc. */
async function residentBytes(pid: number): Promise<number | undefined> {
  const rssOf = async (of: number) => {
    const kilobytes = /^VmRSS:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${of}/status`, "utf8"))?.[1];
    return kilobytes === undefined ? 0 : Number(kilobytes) * 1024;
  };
  try {
    let total = await rssOf(pid);
    const children = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "")).trim();
    for (const child of children ? children.split(/\s+/) : []) total += await rssOf(Number(child)).catch(() => 0);
    return total;
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A result for a file whose reader was stopped: the document goes to extraction_failed with this message. */
export function stoppedResult(message: string): ExtractionResult {
  return { format: "unreadable", fields: {}, messages: [{ key: null, message, severity: "warning" }], stopped: true };
}

/**
 * Reads files in processes of their own, each in its own process group, with its memory capped by the operating
 * system (RLIMIT_DATA, set by the reader itself, see reader-process.ts) and watched from here (resident memory of
 * the reader and its OCR programs), and a deadline. A PDF bomb, a huge page or an endless parse costs one reader:
 * its whole group is killed, its temporary directory removed, a new reader started, and the file ends with a
 * message. Readers inherit none of the service's secrets.
 */
export class ExtractionPool {
  private readonly readers: Reader[] = [];
  private readonly queue: Job[] = [];
  private readonly limits: ExtractionLimits;
  private readonly tmpRoot: string;
  private readonly capBytes: number;
  private readonly owner = PROCESS_OWNER;
  private nextId = 1;
  private closed = false;
  private warnedUncapped = false;
  /** Readers in a row that died before they were ready. */
  private failedStarts = 0;

  constructor(private readonly options: ExtractionPoolOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.tmpRoot = options.tmpRoot ?? os.tmpdir();
    this.capBytes = options.maxMemoryMb * 1024 * 1024;
    for (let index = 0; index < Math.max(1, options.size); index += 1) this.readers.push(this.spawn());
  }

  /**
   * Removes the temporary directories of readers whose service is gone (killed, or an earlier run of this container,
   * whose process id this one may have inherited): OCR's pages of a killed reader must not fill the disk.
   */
  async sweep(): Promise<number> {
    const entries = await readdir(this.tmpRoot).catch(() => [] as string[]);
    let removed = 0;
    for (const entry of entries) {
      const match = new RegExp(`^${TMP_PREFIX}(\\d+)-([0-9a-f]+)-\\d+$`).exec(entry);
      if (!match) continue;
      const [, pid, owner] = match;
      const ours = `${pid}-${owner}` === this.owner;
      if (ours || (Number(pid) !== process.pid && pidAlive(Number(pid)))) continue;
      await rm(path.join(this.tmpRoot, entry), { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }

  /**
   * Reads one file's invoice; `limits` overrides the pool's for this file (e.g. `deferOcr`). A stopped reader answers
   * a `stopped` result: the document goes to extraction_failed with its message.
   */
  async extract(input: ExtractionInput, limits: Partial<ExtractionLimits> = {}): Promise<ExtractionResult> {
    try {
      return await this.run<"extract">({ kind: "extract", input, limits: { ...this.limits, ...limits } });
    } catch (error) {
      if (error instanceof ReaderStoppedError) return stoppedResult(error.message);
      throw error;
    }
  }

  /** The file's pages (sizes in points); [] for a file without pages. Throws ReaderStoppedError or UnreadableFileError. */
  pages(input: ExtractionInput): Promise<PageRead[]> {
    return this.run<"pages">({ kind: "pages", input });
  }

  /** The words of one page (text layer, or OCR where it has none). Throws ReaderStoppedError or UnreadableFileError. */
  words(input: ExtractionInput, page: number): Promise<PageWord[]> {
    return this.run<"words">({ kind: "words", input, page, limits: this.limits });
  }

  /** One page drawn `width` pixels wide. Throws ReaderStoppedError or UnreadableFileError. */
  render(input: ExtractionInput, page: number, width: number): Promise<RenderedPage> {
    // pdftoppm is stopped a second before the reader would be: the reader answers why and stays.
    return this.run<"render">({ kind: "render", input, page, width, timeoutMs: Math.max(1_000, this.options.timeoutMs - 1_000) });
  }

  private run<K extends ReaderTask["kind"]>(task: Extract<ReaderTask, { kind: K }>): Promise<ReaderResults[K]> {
    if (this.closed) return Promise.reject(new Error("the extraction pool is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve: resolve as Job["resolve"], reject });
      this.dispatch();
    });
  }

  /**
   * Resolves once every reader has started (pdf.js loaded and warmed, memory capped), or after `timeoutMs`: the
   * service says it is ready only then, so that the first file does not pay a reader's start.
   */
  async started(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.closed) {
      if (this.readers.every((reader) => reader.ready)) return true;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return false;
  }

  /** Process ids of the readers (tests look at their environment and memory). */
  readerPids(): number[] {
    return this.readers.flatMap((reader) => (reader.child.pid === undefined ? [] : [reader.child.pid]));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error("the extraction pool is closed"));
    await Promise.all(
      this.readers.splice(0).map(async (reader) => {
        reader.job?.reject(new Error("the extraction pool is closed"));
        reader.job = undefined;
        await this.end(reader);
      }),
    );
  }

  private spawn(): Reader {
    const tmpDir = path.join(this.tmpRoot, `${TMP_PREFIX}${this.owner}-${nextReader++}`);
    mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
    const execArgv = [
      // Under tests the sources run through tsx; so does the reader.
      ...(running ? ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href] : []),
      // The heap fits inside the data cap; the cap is what bounds buffers that live outside the heap.
      `--max-old-space-size=${this.options.maxMemoryMb}`,
    ];
    const child = fork(this.options.readerPath ?? READER_PATH, [], {
      execArgv,
      env: readerEnvironment(tmpDir, this.capBytes),
      cwd: tmpDir,
      // Its own process group: a kill reaches the OCR programs it started too.
      detached: true,
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const reader: Reader = { child, tmpDir, ready: false, baseRss: 0, stderrTail: "", ended: false };
    child.stderr?.on("data", (chunk: Buffer) => {
      reader.stderrTail = (reader.stderrTail + chunk.toString("utf8")).slice(-4_096);
    });
    child.on("message", (reply: ReaderReply) => this.onReply(reader, reply));
    child.on("exit", (code, signal) => {
      if (reader.ended) return;
      // Under RLIMIT_DATA an allocation refused outside V8's heap checks (a decoder's buffer, V8's own reservations)
      // ends the process with one of these signals instead of an "out of memory" line.
      const memory = MEMORY_SIGNS.test(reader.stderrTail) || (reader.capped && reader.job !== undefined && CRASH_SIGNALS.has(signal ?? ""));
      this.replace(
        reader,
        memory ? this.memoryMessage() : `The file could not be read (the reader stopped: ${signal ?? `exit code ${code}`}).`,
      );
    });
    child.on("error", () => {
      if (!reader.ended) this.replace(reader, "The file could not be read (the reader could not be started).");
    });
    child.unref();
    child.channel?.unref();
    return reader;
  }

  private onReply(reader: Reader, reply: ReaderReply): void {
    if ("ready" in reply) {
      reader.capped = reply.capped;
      if (!reply.capped && !this.warnedUncapped) {
        this.warnedUncapped = true;
        this.options.onUncapped?.();
      }
      // Ready once its start is measured: the watchdog counts from there.
      void residentBytes(reader.child.pid ?? 0).then((bytes) => {
        reader.baseRss = bytes ?? 0;
        reader.ready = true;
        this.dispatch();
      });
      return;
    }
    const job = reader.job;
    if (!job || job.id !== reply.id) return;
    this.settle(reader);
    if ("result" in reply) {
      job.resolve(reply.result);
      this.dispatch();
      return;
    }
    // The file cannot be used for this (the engine said why); the reader is whole and takes the next file.
    if (reply.unreadable) {
      job.reject(new UnreadableFileError(reply.error));
      this.dispatch();
      return;
    }
    // A reader that threw may have half-built state (an allocation refused half-way): it is not reused.
    this.replace(reader, MEMORY_SIGNS.test(reply.error) ? this.memoryMessage() : `The file could not be read (${reply.error}).`, job);
  }

  private memoryMessage(): string {
    return `Reading this file needed more than ${this.options.maxMemoryMb} MB of memory; it was stopped.`;
  }

  private settle(reader: Reader): void {
    clearTimeout(reader.deadline);
    clearInterval(reader.watchdog);
    reader.deadline = undefined;
    reader.watchdog = undefined;
    reader.job = undefined;
  }

  /** Ends `reader` (its whole process group) and its temporary directory. */
  private async end(reader: Reader): Promise<void> {
    this.settle(reader);
    if (!reader.ended) {
      reader.ended = true;
      const exited = new Promise<void>((resolve) => {
        if (reader.child.exitCode !== null || reader.child.signalCode !== null) resolve();
        else reader.child.once("exit", () => resolve());
      });
      try {
        if (reader.child.pid !== undefined) process.kill(-reader.child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    }
    await rm(reader.tmpDir, { recursive: true, force: true }).catch(() => undefined);
  }

  /**
   * Ends the reader's job with a ReaderStoppedError saying `failure`, ends the reader, starts a new one and goes on with
   * the queue. A reader that
   * died before it was ready (a broken install, a runtime that refuses to start) is restarted after a delay that
   * doubles up to 30 s, instead of in a loop that would take a core.
   */
  private replace(reader: Reader, failure: string, finished?: Job): void {
    const job = finished ?? reader.job;
    const index = this.readers.indexOf(reader);
    if (index >= 0) this.readers.splice(index, 1);
    void this.end(reader);
    job?.reject(new ReaderStoppedError(failure));
    if (this.closed) return;
    this.failedStarts = reader.ready ? 0 : this.failedStarts + 1;
    if (this.failedStarts === 0) {
      this.readers.push(this.spawn());
      this.dispatch();
      return;
    }
    const delay = Math.min(30_000, 250 * 2 ** (this.failedStarts - 1));
    this.options.onStartFailed?.(delay);
    setTimeout(() => {
      if (this.closed) return;
      this.readers.push(this.spawn());
      this.dispatch();
    }, delay).unref();
  }

  private dispatch(): void {
    for (const reader of this.readers) {
      if (reader.job || !reader.ready || reader.ended) continue;
      const job = this.queue.shift();
      if (!job) return;
      reader.job = job;
      reader.deadline = setTimeout(
        () => this.replace(reader, `Reading this file took longer than ${Math.round(this.options.timeoutMs / 1000)} s; it was stopped.`),
        this.options.timeoutMs,
      );
      reader.watchdog = setInterval(() => void this.watch(reader, job), WATCH_INTERVAL_MS);
      const message: ReaderJob = { id: job.id, task: job.task };
      reader.child.send(message, (error) => {
        if (error && reader.job === job) this.replace(reader, "The file could not be handed to the reader.");
      });
    }
  }

  /** Kills a reader whose group holds more than its cap above what it started with. */
  private async watch(reader: Reader, job: Job): Promise<void> {
    const pid = reader.child.pid;
    if (pid === undefined || reader.job !== job) return;
    const bytes = await residentBytes(pid);
    if (bytes !== undefined && reader.job === job && bytes > reader.baseRss + this.capBytes) this.replace(reader, this.memoryMessage());
  }
}
