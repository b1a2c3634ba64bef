import type { BreakerState } from "../delivery/endpoint-breakers.js";
import type { DeliveryStore } from "../store/delivery-store.js";
import type { Actor } from "./access.js";
import type { Webhook } from "./records.js";
import type { Webhooks } from "./webhooks.js";

/** Why a disabled webhook's pending deliveries were given up (their status is failed; nothing more is sent). */
export const DISABLED_WEBHOOK_ERROR = "webhook disabled: its receiver kept failing";

/** The window GET /webhooks/{id}/health looks at; its name is part of the answer. */
export const HEALTH_WINDOW = { name: "1h", ms: 3_600_000 } as const;

export interface ReceiverHealthReport {
  /** Succeeded attempts / attempts in the window; null without attempts. */
  successRate: number | null;
  attempts: number;
  p50LatencyMs: number | null;
  p99LatencyMs: number | null;
  breakerState: BreakerState;
  window: typeof HEALTH_WINDOW.name;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
}

/**
 * How a webhook's receiver is doing: its attempts of the last hour from Postgres (every replica's), the
 * current run of failures, and the circuit breaker of its receiver as the replica answering sees it (breakers
 * live in each process).
 */
export class ReceiverHealth {
  constructor(
    private readonly webhooks: Webhooks,
    private readonly store: DeliveryStore,
    private readonly breakerStateOf: (webhook: Webhook) => BreakerState,
  ) {}

  /** Whoever may read the webhook may read its health; 404 otherwise. */
  async of(actor: Actor, id: string): Promise<ReceiverHealthReport> {
    const webhook = await this.webhooks.visible(actor, id);
    const stats = await this.store.attemptStats(webhook.id, HEALTH_WINDOW.ms);
    const round = (value: number | null) => (value === null ? null : Math.round(Number(value)));
    return {
      successRate: stats.attempts === 0 ? null : Math.round((stats.succeeded / stats.attempts) * 10_000) / 10_000,
      attempts: stats.attempts,
      p50LatencyMs: round(stats.p50Ms),
      p99LatencyMs: round(stats.p99Ms),
      breakerState: this.breakerStateOf(webhook),
      window: HEALTH_WINDOW.name,
      // From the statement that counted the attempts: the webhook read above may predate the last recorded outcome.
      lastSuccessAt: stats.lastSuccessAt,
      failingSince: stats.failingSince,
    };
  }
}
