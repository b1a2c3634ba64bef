import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";
import { listenWithBodies } from "./local-http-server.js";

/**
 * The part of OTLP's trace schema (opentelemetry/proto/collector/trace/v1 and trace/v1, common/v1, resource/v1)
 * that a test reads, with the field numbers of the published protos; fields not listed are skipped by the decoder.
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated Event events = 11;
  repeated Link links = 13;
  Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const ExportTraceServiceRequest = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType("ExportTraceServiceRequest");

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** One span as a test reads it: ids in lowercase hex, attributes as a plain object, its service's name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
  links: Array<{ traceId: string; spanId: string }>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** When it started, in ms since the epoch (µs kept as the fraction), by the exporting process's clock. */
  startMs: number;
  durationMs: number;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number | string;
  attributes?: OtlpKeyValue[];
  events?: Array<{ name: string; attributes?: OtlpKeyValue[] }>;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number | string };
  /** Decimal strings (64-bit nanoseconds) from both decoders. */
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
}
interface OtlpRequest {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

const KINDS: Record<string, number> = {
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

function attributeValueOf(value: OtlpAnyValue | undefined): AttributeValue {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(attributeValueOf);
  return undefined;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, attributeValueOf(value)]));
}

/** OTLP/JSON carries ids as hex; the protobuf decoder, converted with `bytes: String`, as base64. */
const hexOf = (id: string | undefined, encoding: "hex" | "base64") =>
  id ? (encoding === "hex" ? id.toLowerCase() : Buffer.from(id, "base64").toString("hex")) : "";

/** Nanoseconds since the epoch (too many for a double's precision) as milliseconds with the microseconds kept. */
function millisecondsOf(nanoseconds: string | number | undefined): number {
  if (nanoseconds === undefined) return 0;
  const whole = BigInt(nanoseconds);
  return Number(whole / 1_000n) / 1_000;
}

function spansOf(request: OtlpRequest, idEncoding: "hex" | "base64"): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          service,
          traceId: hexOf(span.traceId, idEncoding),
          spanId: hexOf(span.spanId, idEncoding),
          parentSpanId: hexOf(span.parentSpanId, idEncoding),
          name: span.name,
          kind: typeof span.kind === "string" ? (KINDS[span.kind] ?? 0) : (span.kind ?? 0),
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
          links: (span.links ?? []).map((link) => ({ traceId: hexOf(link.traceId, idEncoding), spanId: hexOf(link.spanId, idEncoding) })),
          statusCode: typeof span.status?.code === "string" ? (STATUS_CODES[span.status.code] ?? 0) : (span.status?.code ?? 0),
          startMs: millisecondsOf(span.startTimeUnixNano),
          durationMs: millisecondsOf(span.endTimeUnixNano) - millisecondsOf(span.startTimeUnixNano),
        });
      }
    }
  }
  return spans;
}

/** What arrived at the receiver: one entry per export request. */
export interface OtlpExport {
  contentType: string;
  headers: IncomingHttpHeaders;
  spans: ReceivedSpan[];
}

/**
 * A local OTLP/HTTP trace receiver on 127.0.0.1 (`POST /v1/traces`), as a collector would be: it takes
 * `application/x-protobuf` (decoded with protobufjs) and `application/json`, and keeps every span it got.
 * Point a process at it with OTEL_EXPORTER_OTLP_ENDPOINT=`receiver.url`.
 */
export class OtlpReceiver {
  readonly exports: OtlpExport[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = await listenWithBodies((req, body, res) => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      const contentType = String(req.headers["content-type"] ?? "");
      try {
        const spans = contentType.startsWith("application/json")
          ? spansOf(JSON.parse(body.toString("utf8")) as OtlpRequest, "hex")
          : spansOf(
              ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { bytes: String, longs: String }) as OtlpRequest,
              "base64",
            );
        receiver!.exports.push({ contentType, headers: req.headers, spans });
      } catch (error) {
        res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
        return;
      }
      res.writeHead(200, { "content-type": contentType.startsWith("application/json") ? "application/json" : "application/x-protobuf" });
      res.end(contentType.startsWith("application/json") ? "{}" : undefined);
    });
    receiver = new OtlpReceiver(server);
    return receiver;
  }

  /** Where to point OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add `/v1/traces`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get spans(): ReceivedSpan[] {
    return this.exports.flatMap((received) => received.spans);
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
