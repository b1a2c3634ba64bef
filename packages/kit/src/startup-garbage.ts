import { performance } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface StartupCollection {
  /** The V8 heap's committed size before and after, in bytes (RSS follows it). */
  heapBefore: number;
  heapAfter: number;
  durationMs: number;
}

export interface StartupCollectionOptions {
  /** The first look, after the start (its first seeds, polls and calls are done by then). */
  delayMs: number;
  /** Then one look per interval, until the process was idle through one. */
  intervalMs: number;
  /** Looks before giving up: a process busy that long has had major collections of its own. */
  attempts: number;
  /** Idle: the event loop was busy less than this share of the interval (performance.eventLoopUtilization). */
  idleBelow: number;
}

export const STARTUP_COLLECTION: StartupCollectionOptions = { delayMs: 10_000, intervalMs: 5_000, attempts: 12, idleBelow: 0.05 };

/**
 * One full garbage collection, now. `gc` comes from a context made while V8's `--expose-gc` is on, and the flag is
 * turned off again at once: the process's own global gets no `gc`, and nothing has to be given on the command line
 * (a pod's NODE_OPTIONS may replace the image's).
 */
export function collectGarbage(): StartupCollection {
  setFlagsFromString("--expose-gc");
  let gc: () => void;
  try {
    gc = runInNewContext("gc") as () => void;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  const heapBefore = getHeapStatistics().total_heap_size;
  const started = performance.now();
  gc();
  return { heapBefore, heapAfter: getHeapStatistics().total_heap_size, durationMs: performance.now() - started };
}

/**
 * Collects a started process's garbage once, at the first interval through which it was idle. V8 gives an idle
 * heap back only after a major collection (its memory reducer starts from one), and starting needs none: loading
 * the code leaves garbage, and a heap sized for it, that a service waiting for work would keep for good (about
 * 10–15 MiB of RSS a process, bench/REPORT.md). The collection stops the process for 25–60 ms, so it waits for an
 * idle interval, where that delays nobody; a process with work has major collections of its own, after which the
 * reducer shrinks its heap when the work stops. Returns a function that cancels what has not run yet.
 */
export function collectStartupGarbageWhenIdle(
  onCollected: (collection: StartupCollection) => void,
  options: StartupCollectionOptions = STARTUP_COLLECTION,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let looks = 0;
  let since = performance.eventLoopUtilization();
  const look = () => {
    const busy = performance.eventLoopUtilization(since).utilization;
    since = performance.eventLoopUtilization();
    looks += 1;
    if (busy >= options.idleBelow) {
      if (looks < options.attempts) schedule(options.intervalMs);
      return;
    }
    let collection: StartupCollection;
    try {
      collection = collectGarbage();
    } catch {
      // A runtime that refuses the flag keeps its garbage; that is no reason to stop a serving process.
      return;
    }
    onCollected(collection);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(look, ms);
    timer.unref();
  };
  // The first look measures the last interval before it, not the start-up's work.
  timer = setTimeout(
    () => {
      since = performance.eventLoopUtilization();
      schedule(options.intervalMs);
    },
    Math.max(0, options.delayMs - options.intervalMs),
  );
  timer.unref();
  return () => clearTimeout(timer);
}
