/** NATS JetStream, the transactional outbox, and the events every service reacts to: `@docex/kit/bus`. */
export * from "./event-bus.js";
export * from "./nats-users.js";
export * from "./outbox.js";
export * from "./outbox-events.js";
export * from "./queue-changes.js";
export * from "./removals.js";
