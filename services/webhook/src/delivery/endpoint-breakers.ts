import type { Metrics } from "@docex/kit";
import CircuitBreaker from "opossum";

export interface BreakerSettings {
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeoutMs: number;
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

interface Entry {
  breaker: CircuitBreaker<[() => Promise<unknown>], unknown>;
  openedAt: number;
  lastUsed: number;
}

const STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;
export type BreakerState = keyof typeof STATE_VALUE;

const MAX_IDLE_MS = 10 * 60_000;
const SWEEP_ABOVE = 1_000;

/**
 * One opossum circuit breaker per receiver (the URL's origin: scheme, host, port). A receiver that keeps
 * failing opens its breaker; its deliveries then wait, without an attempt, until the breaker lets one probe
 * through (half-open) and the probe's outcome closes or re-opens it. The state of each breaker is the kit's
 * `circuit_breaker_state{breaker="webhook:<origin>"}`. Origins rather than whole URLs: a receiver that is
 * down is down for all its paths, and a URL's path or query (often a token) stays out of metric labels.
 */
export class EndpointBreakers {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly metrics?: Metrics,
  ) {}

  static keyOf(url: string): string {
    return new URL(url).origin;
  }

  private entryFor(origin: string): Entry {
    const existing = this.entries.get(origin);
    if (existing) {
      existing.lastUsed = Date.now();
      return existing;
    }
    if (this.entries.size >= SWEEP_ABOVE) this.sweep();
    const breaker = new CircuitBreaker((send: () => Promise<unknown>) => send(), {
      timeout: false,
      errorThresholdPercentage: this.settings.errorThresholdPercentage,
      volumeThreshold: this.settings.volumeThreshold,
      resetTimeout: this.settings.resetTimeoutMs,
      errorFilter: (error: unknown) => error instanceof ReceiverFailure && !error.counts,
    });
    const entry: Entry = { breaker, openedAt: 0, lastUsed: Date.now() };
    const label = { breaker: `webhook:${origin}` };
    breaker.on("open", () => {
      entry.openedAt = Date.now();
      this.metrics?.breakerState.set(label, STATE_VALUE.open);
    });
    breaker.on("halfOpen", () => this.metrics?.breakerState.set(label, STATE_VALUE.half_open));
    breaker.on("close", () => this.metrics?.breakerState.set(label, STATE_VALUE.closed));
    this.metrics?.breakerState.set(label, STATE_VALUE.closed);
    this.entries.set(origin, entry);
    return entry;
  }

  /**
   * Sends through the receiver's breaker. `isFailure` says whether a result is a failure and whether it
   * counts against the receiver (a 404 says the URL is wrong, not that the receiver is down).
   */
  async run<T>(
    url: string,
    send: () => Promise<T>,
    isFailure: (result: T) => { failed: boolean; counts: boolean },
  ): Promise<BreakerRun<T>> {
    const entry = this.entryFor(EndpointBreakers.keyOf(url));
    try {
      const result = await entry.breaker.fire(async () => {
        const result = await send();
        const verdict = isFailure(result);
        if (verdict.failed) throw new ReceiverFailure(result, verdict.counts);
        return result;
      });
      return { kind: "sent", result: result as T };
    } catch (error) {
      if (error instanceof ReceiverFailure) return { kind: "sent", result: error.result as T };
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

  stateOf(url: string): BreakerState {
    const entry = this.entries.get(EndpointBreakers.keyOf(url));
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
    for (const [origin, entry] of this.entries) {
      if (entry.breaker.closed && now - entry.lastUsed > MAX_IDLE_MS) {
        entry.breaker.shutdown();
        this.metrics?.breakerState.remove({ breaker: `webhook:${origin}` });
        this.entries.delete(origin);
      }
    }
  }

  shutdown(): void {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
  }
}
