import { hostOf } from "../domain/target-policy.js";

/** A URL as a request needs it; parsed once per URL (bounded: emptied at 10,000 URLs). */
export interface ParsedTarget {
  origin: string;
  /** Path and query. */
  path: string;
  /** The host without IPv6 brackets. */
  host: string;
}

const parsedTargets = new Map<string, ParsedTarget>();

export function parsedTarget(url: string): ParsedTarget {
  let target = parsedTargets.get(url);
  if (!target) {
    if (parsedTargets.size >= 10_000) parsedTargets.clear();
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, host: hostOf(parsed) };
    parsedTargets.set(url, target);
  }
  return target;
}
