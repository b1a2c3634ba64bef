import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { ExpressInstrumentation, ExpressLayerType } from "@opentelemetry/instrumentation-express";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { envDetector, hostDetector, processDetector } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { onTracingShutdown } from "./lifecycle.js";
import { RedactingSpanExporter } from "./redacting-exporter.js";
import type { TracingSettings } from "./settings.js";

/** Paths that probes and scrapers ask for every few seconds: a trace of each would bury the requests. */
const OPERATIONAL_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

/** The modules the instrumentations patch; only these are intercepted at import (see register.ts). */
export const INSTRUMENTED_MODULES = ["http", "https", "node:http", "node:https", "express", "@grpc/grpc-js", "pg"];

/**
 * Starts the OpenTelemetry SDK for traces only (no OTLP metrics or logs: Prometheus and pino cover those), with
 * the instrumentations of the modules every process uses. Spans are only made under a request: pollers (the
 * outbox relay, the delivery sender) do not start traces of their own with each query.
 */
export function startTracing(settings: TracingSettings): void {
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    // Query secrets (a password-change link's token) are redacted from every span before it leaves the process.
    traceExporter: new RedactingSpanExporter(
      settings.protocol === "http/json" ? new OtlpJsonTraceExporter() : new OtlpProtobufTraceExporter(),
    ),
    // Trace context only: W3C baggage (the SDK's other default) would carry whatever a client sent along every call,
    // event and webhook of its request, and docex reads none of it.
    textMapPropagator: new W3CTraceContextPropagator(),
    metricReaders: [],
    logRecordProcessors: [],
    resourceDetectors: [envDetector, processDetector, hostDetector],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => OPERATIONAL_PATHS.test(request.url ?? ""),
        requireParentforOutgoingSpans: true,
      }),
      // Middleware layers (parsers, logging) and routers would add a dozen spans to each request and explain nothing:
      // the route's handler is the span that says where the time went.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ["Check", "Watch"] }),
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  onTracingShutdown(() => sdk.shutdown());
}
