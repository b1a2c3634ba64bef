export * from "./annotation.js";
export * from "./envelope.js";
export * from "./event-data.js";
export * from "./field-values.js";
export * from "./webhook-payloads.js";
