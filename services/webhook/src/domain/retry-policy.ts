/** What happens to a delivery after an attempt that did not succeed. */
export type AfterFailure = { kind: "retry"; at: Date } | { kind: "give_up" };

export interface RetryPolicyOptions {
  /** Seconds to wait after attempt 1, 2, ... (WEBHOOK_RETRY_SCHEDULE). */
  scheduleSeconds: number[];
  /** ±fraction applied to each wait (API.md: 20 %). */
  jitter?: number;
  /** A receiver's Retry-After is honoured up to this many seconds. */
  maxRetryAfterSeconds?: number;
  random?: () => number;
}

/**
 * API.md "Webhooks": a failed attempt is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±20 %), then the
 * delivery is `failed`. A receiver's `Retry-After` moves the next attempt later, never earlier than the schedule.
 */
export class RetryPolicy {
  private readonly jitter: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly random: () => number;

  constructor(private readonly options: RetryPolicyOptions) {
    this.jitter = options.jitter ?? 0.2;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 86_400;
    this.random = options.random ?? Math.random;
  }

  /** Attempts a delivery gets from the schedule: the first one plus one per entry. */
  get maxAttempts(): number {
    return 1 + this.options.scheduleSeconds.length;
  }

  /** The schedule's wait after attempt `attempt` (1-based), without jitter. */
  scheduledDelaySeconds(attempt: number): number {
    const schedule = this.options.scheduleSeconds;
    return schedule[Math.min(attempt, schedule.length) - 1] ?? schedule[schedule.length - 1] ?? 0;
  }

  /**
   * After attempt `attempt` failed: the next attempt's time, or give up once `maxAttempts` were made.
   * `maxAttempts` is the delivery's own (a manual retry adds one to a delivery that had none left).
   */
  afterFailure(attempt: number, maxAttempts: number, now: Date, retryAfterSeconds?: number): AfterFailure {
    if (attempt >= maxAttempts || this.options.scheduleSeconds.length === 0) return { kind: "give_up" };
    const factor = 1 - this.jitter + 2 * this.jitter * this.random();
    let seconds = this.scheduledDelaySeconds(attempt) * factor;
    if (retryAfterSeconds !== undefined) seconds = Math.max(seconds, Math.min(retryAfterSeconds, this.maxRetryAfterSeconds));
    return { kind: "retry", at: new Date(now.getTime() + Math.round(seconds * 1000)) };
  }
}

/** `Retry-After` as seconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, now: Date): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now.getTime()) / 1000);
}
