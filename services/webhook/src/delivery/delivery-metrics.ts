import type { Metrics } from "@docex/kit/metrics";
import { Counter, Gauge, Histogram } from "prom-client";
import type { EndpointBreakers } from "./endpoint-breakers.js";

export type DeliveryOutcomeLabel = "succeeded" | "retry_scheduled" | "failed" | "deferred";

/** The webhook service's own metrics, on the process's registry. */
export class DeliveryMetrics {
  readonly outcomes: Counter<"outcome">;
  readonly attemptDuration: Histogram<"result">;
  readonly eventToAnswer: Histogram;
  readonly due: Gauge;
  readonly pending: Gauge;
  readonly created: Counter<"type">;
  /** The labelled series the sender counts every attempt in, looked up once. */
  readonly outcome: Record<DeliveryOutcomeLabel, Counter.Internal>;
  readonly attemptSeconds: Record<"success" | "failure", Histogram.Internal<"result">>;

  constructor(metrics: Metrics, breakers: EndpointBreakers, inFlight: () => number) {
    const registers = [metrics.registry];
    this.outcomes = new Counter({
      name: "webhook_deliveries_total",
      help: "Delivery attempts by outcome: succeeded, retry_scheduled, failed (no attempts left), deferred (breaker open, nothing sent)",
      labelNames: ["outcome"],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: "webhook_delivery_attempt_duration_seconds",
      help: "Time of one delivery attempt, from the request to the receiver's answer (or the failure)",
      labelNames: ["result"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.outcome = {
      succeeded: this.outcomes.labels({ outcome: "succeeded" }),
      retry_scheduled: this.outcomes.labels({ outcome: "retry_scheduled" }),
      failed: this.outcomes.labels({ outcome: "failed" }),
      deferred: this.outcomes.labels({ outcome: "deferred" }),
    };
    // Every outcome is a series from the start, so that an alert sees the first failed delivery of a pod as an increase.
    for (const series of Object.values(this.outcome)) series.inc(0);
    this.attemptSeconds = {
      success: this.attemptDuration.labels({ result: "success" }),
      failure: this.attemptDuration.labels({ result: "failure" }),
    };
    this.eventToAnswer = new Histogram({
      name: "webhook_delivery_first_attempt_lag_seconds",
      help: "From the event (occurred_at) to the receiver's answer to the first attempt",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.due = new Gauge({
      name: "webhook_deliveries_due",
      help: "Deliveries due now and not held by a sender (sampled)",
      registers,
    });
    this.pending = new Gauge({
      name: "webhook_deliveries_pending",
      help: "Deliveries not yet succeeded or failed, including those waiting for a retry (sampled)",
      registers,
    });
    this.created = new Counter({
      name: "webhook_deliveries_created_total",
      help: "Deliveries created from events, by webhook type",
      labelNames: ["type"],
      registers,
    });
    new Gauge({
      name: "webhook_deliveries_in_flight",
      help: "Delivery attempts on the wire in this process",
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    new Gauge({
      name: "webhook_breakers",
      help: "Receivers' circuit breakers by state",
      labelNames: ["state"],
      registers,
      collect() {
        for (const [state, count] of Object.entries(breakers.countByState())) this.set({ state }, count);
      },
    });
  }
}
