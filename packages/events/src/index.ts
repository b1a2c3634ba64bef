export * from "./document-statuses.js";
export * from "./envelope.js";
export * from "./event-data.js";
export * from "./service-events.js";
export * from "./webhook-payloads.js";
