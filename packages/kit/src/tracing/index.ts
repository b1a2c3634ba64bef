/** Tracing settings, spans and the redacting exporter: `@docex/kit/tracing` (the SDK starts from `/tracing/register`). */
export * from "./lifecycle.js";
export * from "./redacting-exporter.js";
export * from "./settings.js";
export * from "./spans.js";
export * from "./url-secrets.js";
