import { performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

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
 * It is asked of V8 through the in-process inspector (`HeapProfiler.collectGarbage` of the DevTools protocol, over
 * `node:inspector`'s Session: public APIs, no port opened): no V8 flag is changed after start, which Node's
 * documentation warns may crash the process, and no `gc` is exposed on any global. Undefined when the runtime has no
 * inspector (a build without it): the garbage is kept, and the process starts anyway.
 */
export async function collectStartupGarbage(): Promise<StartupCollection | undefined> {
  let inspector: typeof import("node:inspector/promises");
  try {
    inspector = await import("node:inspector/promises");
  } catch {
    return undefined;
  }
  const usedBefore = getHeapStatistics().used_heap_size;
  const started = performance.now();
  const session = new inspector.Session();
  try {
    session.connect();
    await session.post("HeapProfiler.collectGarbage");
  } catch {
    return undefined;
  } finally {
    session.disconnect();
  }
  return { usedBefore, usedAfter: getHeapStatistics().used_heap_size, durationMs: performance.now() - started };
}
