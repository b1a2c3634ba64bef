import type { EventEmitter } from "node:events";
import type { Metrics } from "@docex/kit/metrics";
import CircuitBreaker from "opossum";
import { parsedTarget } from "./parsed-targets.js";

export interface BreakerSettings {
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeoutMs: number;
  /**
   * A call still running after this long fails and its signal aborts it (validation budgets). Absent for
   * deliveries, whose transport bounds each attempt itself.
   */
  timeoutMs?: number;
}

/** What a send through a breaker came to: its result, or a refusal because the receiver's breaker is open. */
export type BreakerRun<T> = { kind: "sent"; result: T } | { kind: "open"; retryAt: number };

/** A failed send, thrown inside the breaker so that opossum counts it; `counts` false for failures that are not the receiver being down. */
class ReceiverFailure<T> extends Error {
  constructor(
    readonly result: T,
    readonly counts: boolean,
  ) {
    super("receiver failure");
  }
}

/** `signal` only with a timeout: nothing else aborts a send. */
type Send = (signal: AbortSignal | undefined) => Promise<unknown>;

interface Entry {
  breaker: CircuitBreaker<[Send, AbortController | undefined], unknown>;
  openedAt: number;
  lastUsed: number;
}

const STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;
export type BreakerState = keyof typeof STATE_VALUE;

const MAX_IDLE_MS = 10 * 60_000;
const SWEEP_ABOVE = 1_000;

/**
 * One opossum circuit breaker per key. Deliveries key by receiver (the URL's origin: scheme, host, port);
 * validation keys by link, one instance per validation type with the type's budget as timeout. A receiver
 * that keeps failing opens its breaker; its calls are then refused at once, without a request, until the
 * breaker lets one probe through (half-open) and the probe's outcome closes or re-opens it. The state of
 * each breaker is the kit's `circuit_breaker_state{breaker="webhook:<key>"}`. Origins rather than whole URLs
 * for deliveries: a receiver that is down is down for all its paths, and a URL's path or query (often a
 * token) stays out of metric labels.
 */
export class EndpointBreakers {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly metrics?: Metrics,
  ) {}

  /** The key of a delivery's receiver. */
  static keyOf(url: string): string {
    return parsedTarget(url).origin;
  }

  private entryFor(key: string): Entry {
    const existing = this.entries.get(key);
    if (existing) {
      existing.lastUsed = Date.now();
      return existing;
    }
    if (this.entries.size >= SWEEP_ABOVE) this.sweep();
    const breaker = new CircuitBreaker((send: Send, controller: AbortController | undefined) => send(controller?.signal), {
      timeout: this.settings.timeoutMs ?? false,
      errorThresholdPercentage: this.settings.errorThresholdPercentage,
      volumeThreshold: this.settings.volumeThreshold,
      resetTimeout: this.settings.resetTimeoutMs,
      errorFilter: (error: unknown) => error instanceof ReceiverFailure && !error.counts,
      // Only counts decide; latency percentiles would be sorted again on every counted failure, and nobody reads them.
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    });
    // Each call has its own controller (opossum's own would be shared by concurrent calls): a timeout aborts that request only.
    const events: EventEmitter = breaker; // opossum's types leave out the call's arguments, which it passes
    events.on("timeout", (_error: unknown, _latency: unknown, args: [Send, AbortController | undefined]) => args[1]?.abort());
    const entry: Entry = { breaker, openedAt: 0, lastUsed: Date.now() };
    const label = { breaker: `webhook:${key}` };
    breaker.on("open", () => {
      entry.openedAt = Date.now();
      this.metrics?.breakerState.set(label, STATE_VALUE.open);
    });
    breaker.on("halfOpen", () => this.metrics?.breakerState.set(label, STATE_VALUE.half_open));
    breaker.on("close", () => this.metrics?.breakerState.set(label, STATE_VALUE.closed));
    this.metrics?.breakerState.set(label, STATE_VALUE.closed);
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Sends through the breaker of `key`. `isFailure` says whether a result is a failure and whether it
   * counts against the receiver (a 404 says the URL is wrong, not that the receiver is down). With a
   * timeout, `send` must end soon after its signal aborts: its result (the failure it came to) is returned.
   */
  async run<T>(
    key: string,
    send: (signal: AbortSignal | undefined) => Promise<T>,
    isFailure: (result: T) => { failed: boolean; counts: boolean },
  ): Promise<BreakerRun<T>> {
    const entry = this.entryFor(key);
    let sending: Promise<T> | undefined;
    const judged = async (signal: AbortSignal | undefined) => {
      sending = send(signal);
      const result = await sending;
      const verdict = isFailure(result);
      if (verdict.failed) throw new ReceiverFailure(result, verdict.counts);
      return result;
    };
    try {
      const controller = this.settings.timeoutMs === undefined ? undefined : new AbortController();
      const result = await entry.breaker.fire(judged, controller);
      return { kind: "sent", result: result as T };
    } catch (error) {
      if (error instanceof ReceiverFailure) return { kind: "sent", result: error.result as T };
      // Timed out: opossum counted it and the signal aborted the request, which now ends with its own account of it.
      if ((error as { code?: string }).code === "ETIMEDOUT" && sending) return { kind: "sent", result: await sending };
      if ((error as { code?: string }).code === "EOPENBREAKER") {
        // Half-open with the probe still out: its answer decides soon. Open: wait for the reset timeout.
        const retryAt = entry.breaker.halfOpen
          ? Date.now() + Math.min(1_000, this.settings.resetTimeoutMs)
          : entry.openedAt + this.settings.resetTimeoutMs;
        return { kind: "open", retryAt: Math.max(retryAt, Date.now() + 50) };
      }
      throw error;
    }
  }

  stateOf(key: string): BreakerState {
    const entry = this.entries.get(key);
    if (!entry) return "closed";
    return entry.breaker.opened ? "open" : entry.breaker.halfOpen ? "half_open" : "closed";
  }

  /** How many breakers are in each state, for the `webhook_breakers` gauge. */
  countByState(): Record<BreakerState, number> {
    const counts: Record<BreakerState, number> = { closed: 0, half_open: 0, open: 0 };
    for (const { breaker } of this.entries.values()) counts[breaker.opened ? "open" : breaker.halfOpen ? "half_open" : "closed"] += 1;
    return counts;
  }

  /** Drops breakers of receivers not used for a while, unless they are open (their state still matters). */
  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.breaker.closed && now - entry.lastUsed > MAX_IDLE_MS) {
        entry.breaker.shutdown();
        this.metrics?.breakerState.remove({ breaker: `webhook:${key}` });
        this.entries.delete(key);
      }
    }
  }

  shutdown(): void {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
  }
}
