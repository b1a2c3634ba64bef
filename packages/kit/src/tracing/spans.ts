import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

export type { Span };
export { SpanKind };

/** W3C trace context as text headers (`traceparent`, `tracestate`): what outbox rows, JetStream headers and delivery rows carry. */
export type TraceCarrier = Record<string, string>;

const tracer = trace.getTracer("@docex/kit");

/** The active trace context as headers to store or send; undefined outside a trace (and always when tracing is off). */
export function currentTraceCarrier(active: Context = context.active()): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a stored or received carrier names, to start spans under; the root context for none. */
export function contextOfCarrier(carrier: TraceCarrier | null | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent; the active context unless given. */
  parent?: Context;
}

/**
 * Runs `work` in a new span, active while it runs: its error (if any) is recorded on the span and thrown on.
 * When tracing is off the span is a no-op and `work` runs as it would without it.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Like `inSpan`, but only inside a trace: outside one (a poller's work, say) `work` runs without a span of its own. */
export function inChildSpan<T>(name: string, options: Omit<SpanOptions, "parent">, work: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()) return work();
  return inSpan(name, options, work);
}

/** Starts a span that the caller ends; not made active. */
export function startSpan(name: string, options: SpanOptions = {}): Span {
  const { parent = context.active(), ...spanOptions } = options;
  return tracer.startSpan(name, spanOptions, parent);
}

/** Runs `work` with `span` active. */
export function withSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

/** Adds an event to the active span, if any (a cache hit or miss, say). */
export function traceEvent(name: string, attributes?: Attributes): void {
  trace.getActiveSpan()?.addEvent(name, attributes);
}

/** `trace_id` and `span_id` of the active span, for a log line; empty outside a trace. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}
