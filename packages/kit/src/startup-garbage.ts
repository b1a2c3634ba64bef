import { performance } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface StartupCollection {
  /** What the V8 heap's objects took before and after, in bytes. */
  usedBefore: number;
  usedAfter: number;
  durationMs: number;
}

/**
 * One full garbage collection, for a process whose code is loaded and which does not serve yet. V8 gives heap back
 * only after a major collection (its memory reducer starts from one), and loading a service's code needs none: it
 * leaves garbage, and a heap sized for it, that a service waiting for work would keep for good (about 10–15 MiB of
 * RSS a process, bench/REPORT.md). The collection stops the process for some tens of milliseconds, so it is made
 * before the process listens, where it delays no request.
 *
 * `gc` comes from a context made while V8's `--expose-gc` is on, and the flag is turned off again at once: the
 * process's own global gets no `gc`, and nothing has to be given on the command line (a pod's NODE_OPTIONS may
 * replace the image's). Undefined when the runtime refuses: the garbage is kept, and the process starts anyway.
 */
export function collectStartupGarbage(): StartupCollection | undefined {
  let gc: () => void;
  try {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  const usedBefore = getHeapStatistics().used_heap_size;
  const started = performance.now();
  gc();
  return { usedBefore, usedAfter: getHeapStatistics().used_heap_size, durationMs: performance.now() - started };
}
