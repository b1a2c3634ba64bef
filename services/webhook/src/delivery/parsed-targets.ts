import { BoundedCache } from "@docex/kit/cache";
import { hostOf } from "../domain/target-policy.js";

/** A URL as a request needs it; parsed once per URL (bounded: 10,000 URLs, the least recently used leaving first). */
export interface ParsedTarget {
  origin: string;
  /** Path and query. */
  path: string;
  /** The host without IPv6 brackets. */
  host: string;
}

const parsedTargets = new BoundedCache<string, ParsedTarget>({ maxEntries: 10_000 });

export function parsedTarget(url: string): ParsedTarget {
  let target = parsedTargets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, host: hostOf(parsed) };
    parsedTargets.set(url, target);
  }
  return target;
}
