/** OTLP over HTTP, the two encodings the kit exports with. */
export const TRACE_PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type TraceProtocol = (typeof TRACE_PROTOCOLS)[number];

export interface TracingSettings {
  serviceName: string;
  protocol: TraceProtocol;
}

/**
 * Tracing as the standard OpenTelemetry variables ask for it, or undefined when it is off: OTEL_SDK_DISABLED=true,
 * or no endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT for traces alone). The
 * exporter reads the endpoint itself; OTEL_TRACES_SAMPLER is read by the SDK. An unsupported protocol fails the start.
 */
export function tracingSettingsFrom(env: NodeJS.ProcessEnv, defaultServiceName: string): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) return undefined;
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = (env[variable]?.trim() || "http/protobuf") as TraceProtocol;
  if (!TRACE_PROTOCOLS.includes(protocol)) {
    throw new Error(`${variable}=${protocol} is not supported; use one of ${TRACE_PROTOCOLS.join(", ")}`);
  }
  return { serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName, protocol };
}
