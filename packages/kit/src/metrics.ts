import { Counter, collectDefaultMetrics, Gauge, Histogram, type OpenMetricsContentType, Registry } from "prom-client";
import { tracingEnabled } from "./tracing/lifecycle.js";

/**
 * How often the event loop's delay is sampled for prom-client's `nodejs_eventloop_lag_*` series, in ms. prom-client's
 * default, 10, woke an idle process 100 times a second: about 0.7 % of a core per process on the project's 2-core
 * machine, and 7 of the 17 % of a core the whole stack spent doing nothing (kit DECISIONS.md, "What an idle service
 * costs"). A stall still shows in the series in proportion to how often it happens, from ten times fewer samples.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** The labels of an exemplar: the trace and span of one observed request. */
export type TraceExemplar = { trace_id?: string; span_id?: string };

/** What a JetStream stream holds against its limit; `maxBytes` is -1 without one. */
export interface StreamSize {
  stream: string;
  bytes: number;
  maxBytes: number;
}

/** One registry per process (or per in-process test instance), with the metrics the kit records. */
export class Metrics {
  readonly registry: Registry;
  /**
   * Whether the HTTP duration histogram keeps a trace per bucket (an exemplar): when the process exports traces.
   * Exemplars exist only in the OpenMetrics format, so the registry is served as OpenMetrics then, and as
   * Prometheus' text format otherwise (unchanged when tracing is off).
   */
  readonly exemplars: boolean;
  readonly httpDuration: Histogram<"route" | "method" | "status_code">;
  readonly grpcServerDuration: Histogram<"grpc_service" | "method" | "code">;
  readonly grpcClientDuration: Histogram<"target" | "method" | "code">;
  readonly breakerState: Gauge<"breaker">;
  readonly eventsPublished: Counter<"type">;
  readonly eventsConsumed: Counter<"consumer" | "outcome">;
  readonly outboxPending: Gauge;
  readonly dependencyUp: Gauge<"dependency">;
  readonly outboxRefused: Gauge;
  private streamSizes: (() => Promise<StreamSize[]>) | undefined;
  private lastRead: { at: number; sizes: Promise<StreamSize[]> } | undefined;

  constructor(service: string, options: { defaultMetrics?: boolean; exemplars?: boolean } = {}) {
    this.exemplars = options.exemplars ?? tracingEnabled();
    this.registry = new Registry();
    // Typed as Prometheus' registry all the same: every metric of every service registers here, and prom-client's
    // types accept a registry of one format or the other, not of either.
    if (this.exemplars) (this.registry as unknown as Registry<OpenMetricsContentType>).setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    this.registry.setDefaultLabels({ service });
    if (options.defaultMetrics ?? true)
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP requests by route template, method and status code",
      labelNames: ["route", "method", "status_code"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2.5, 5, 10],
      registers,
      enableExemplars: this.exemplars,
    });
    this.grpcServerDuration = new Histogram({
      name: "grpc_server_handling_seconds",
      help: "gRPC calls handled, by gRPC service, method and status code",
      // Not `service`: that is the docex service's own label on every series (and Prometheus' target label).
      labelNames: ["grpc_service", "method", "code"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    this.grpcClientDuration = new Histogram({
      name: "grpc_client_handling_seconds",
      help: "gRPC calls made, by target, method and status code",
      labelNames: ["target", "method", "code"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    this.breakerState = new Gauge({
      name: "circuit_breaker_state",
      help: "Circuit breaker state: 0 closed, 1 half-open, 2 open",
      labelNames: ["breaker"],
      registers,
    });
    this.eventsPublished = new Counter({
      name: "events_published_total",
      help: "Events published to JetStream by the outbox relay",
      labelNames: ["type"],
      registers,
    });
    this.eventsConsumed = new Counter({
      name: "events_consumed_total",
      help: "Events handled by durable consumers, by outcome (ok, duplicate, retry, dead_letter)",
      labelNames: ["consumer", "outcome"],
      registers,
    });
    this.outboxPending = new Gauge({
      name: "outbox_pending_events",
      help: "Events written to the outbox and not yet published",
      registers,
    });
    this.dependencyUp = new Gauge({
      name: "dependency_up",
      help: "Whether a dependency the process copes without (NATS, auth's JWKS) answered when last asked: 1 or 0",
      labelNames: ["dependency"],
      registers,
    });
    this.outboxRefused = new Gauge({
      name: "outbox_refused_events",
      help: "Events of the outbox that NATS refused on their own (e.g. over max_payload), waiting for another attempt",
      registers,
    });
    const metrics = this;
    new Gauge({
      name: "event_stream_bytes",
      help: "Bytes a JetStream stream of docex holds (read from NATS at each scrape)",
      labelNames: ["stream"],
      registers,
      async collect() {
        for (const { stream, bytes } of await metrics.readStreamSizes()) this.set({ stream }, bytes);
      },
    });
    new Gauge({
      name: "event_stream_max_bytes",
      help: "The size limit (max_bytes) of a JetStream stream of docex; absent when it has none",
      labelNames: ["stream"],
      registers,
      async collect() {
        for (const { stream, maxBytes } of await metrics.readStreamSizes()) if (maxBytes > 0) this.set({ stream }, maxBytes);
      },
    });
  }

  /** The event bus tells where the streams' sizes are read; until then the stream gauges stay empty. */
  watchStreams(read: () => Promise<StreamSize[]>): void {
    this.streamSizes = read;
  }

  /** One read of NATS per scrape serves both stream gauges; a failed or slow read leaves them as they were. */
  private readStreamSizes(): Promise<StreamSize[]> {
    const read = this.streamSizes;
    if (!read) return Promise.resolve([]);
    if (!this.lastRead || Date.now() - this.lastRead.at > 1_000) {
      // While NATS is away the read would wait for its request timeout; a scrape should not.
      const timeout = new Promise<StreamSize[]>((resolve) => setTimeout(() => resolve([]), 2_000).unref());
      this.lastRead = { at: Date.now(), sizes: Promise.race([read().catch(() => []), timeout]) };
    }
    return this.lastRead.sizes;
  }

  /** One HTTP request's duration, with its trace as the exemplar of its bucket when there is one. */
  observeHttpRequest(labels: { route: string; method: string; status_code: string }, seconds: number, trace: TraceExemplar): void {
    if (this.exemplars)
      this.httpDuration.observe({ labels, value: seconds, exemplarLabels: trace.trace_id ? (trace as Record<string, string>) : {} });
    else this.httpDuration.observe(labels, seconds);
  }
}
