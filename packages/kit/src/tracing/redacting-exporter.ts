import type { Attributes, AttributeValue } from "@opentelemetry/api";
import type { ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter, TimedEvent } from "@opentelemetry/sdk-trace";
import { redactQueryString, redactUrlSecrets } from "./url-secrets.js";

/** Attributes whose whole value is a query string, without the `?` that `redactUrlSecrets` looks for. */
const QUERY_ATTRIBUTES = new Set(["url.query", "http.query"]);

function redactedValue(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
  const redact = QUERY_ATTRIBUTES.has(key) ? redactQueryString : redactUrlSecrets;
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? redact(item) : item)) as AttributeValue;
  return value;
}

function redactedAttributes(attributes: Attributes): Attributes {
  const redacted: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) redacted[key] = redactedValue(key, value);
  return redacted;
}

/**
 * The span as it is exported: every string an instrumentation may have put a URL in (the name, every attribute,
 * every event's attributes, the status message, the links' attributes) with its query secrets redacted. The
 * instrumentations set `url.query`, `url.full` and `http.target` as they received them, before any code of ours runs.
 */
export function redactedSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: redactUrlSecrets(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status.message === undefined ? span.status : { ...span.status, message: redactUrlSecrets(span.status.message) },
    attributes: redactedAttributes(span.attributes),
    links: span.links.map((link) => (link.attributes ? { ...link, attributes: redactedAttributes(link.attributes) } : link)),
    events: span.events.map(
      (event): TimedEvent => ({
        ...event,
        name: redactUrlSecrets(event.name),
        attributes: event.attributes && redactedAttributes(event.attributes),
      }),
    ),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** Hands every span to `exporter` redacted (`redactedSpan`): the one way spans leave a docex process. */
export class RedactingSpanExporter implements SpanExporter {
  constructor(private readonly exporter: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans.map(redactedSpan), done);
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}
