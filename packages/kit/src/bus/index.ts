/** NATS JetStream, its users and the transactional outbox: `@docex/kit/bus`. */
export * from "./event-bus.js";
export * from "./nats-users.js";
export * from "./outbox.js";
export * from "./outbox-events.js";
export * from "./poll-wait.js";
