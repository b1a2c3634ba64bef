import { EVENT_TYPES, type EventType } from "./envelope.js";

/** The services that connect to NATS; each has a NATS user of its own named after it. */
export const EVENT_SERVICES = [
  "auth",
  "membership",
  "document",
  "automation",
  "learning",
  "register",
  "webhook",
  "extraction",
  "audit",
  "intake",
] as const;
export type EventService = (typeof EVENT_SERVICES)[number];

/** `">"`: every event of the stream (the audit log's one consumer). */
export type ConsumedEvents = EventType | ">";

/**
 * What one service does on the stream. The NATS permissions of its user are generated from this and nothing else
 * (`natsPermissionsOf` in @docex/kit), so an event or subscription missing here is refused by NATS.
 */
export interface ServiceEvents {
  /** Event types it publishes (its outbox); no other service may. */
  publishes: readonly EventType[];
  /** Event types it reads through a durable consumer (JetStream). */
  consumes: readonly ConsumedEvents[];
  /** Event types every instance hears through a plain NATS subscription (`EventBus.broadcast`: caches). */
  hears: readonly EventType[];
}

/**
 * The one list of who publishes and who consumes each event type: the services' READMEs describe it, the NATS
 * users' permissions are generated from it. A service that starts publishing or consuming an event adds it here.
 */
export const SERVICE_EVENTS = {
  auth: {
    publishes: ["auth.user_onboarded", "auth.mail_requested", "auth.login_attempted", "user.personal_data_erased"],
    consumes: ["member.personal_data_erased"],
    hears: [],
  },
  membership: {
    publishes: ["organization.created", "membership.changed", "configuration.changed", "member.personal_data_erased"],
    consumes: ["auth.user_onboarded", "queue.deleted", "user.personal_data_erased"],
    hears: [],
  },
  document: {
    publishes: [
      "queue.created",
      "queue.deleted",
      "workspace.deleted",
      "document.created",
      "document.extracted",
      "document.annotations_changed",
      "document.status_changed",
      "document.approved",
      "configuration.changed",
      "documents.purged",
    ],
    // document.status_changed: its own, for the on_ready exports of documents reaching ready_to_export.
    consumes: ["organization.created", "configuration.changed", "document.status_changed"],
    hears: ["configuration.changed", "queue.deleted", "membership.changed"],
  },
  automation: {
    publishes: ["automation.applied", "configuration.changed"],
    consumes: ["document.extracted", "register.updated", "queue.deleted", "documents.purged"],
    hears: ["membership.changed"],
  },
  learning: {
    publishes: ["learning.feedback"],
    consumes: ["document.extracted", "document.status_changed", "queue.deleted", "documents.purged"],
    hears: ["configuration.changed", "queue.deleted", "membership.changed"],
  },
  register: {
    publishes: ["register.updated"],
    consumes: ["queue.deleted"],
    hears: ["membership.changed"],
  },
  webhook: {
    publishes: ["configuration.changed"],
    consumes: [
      "document.status_changed",
      "queue.created",
      "queue.deleted",
      "workspace.deleted",
      "documents.purged",
      // validation_link: a queue's link replaced its validation webhook (the backstop of DeleteValidationWebhook).
      "configuration.changed",
    ],
    hears: ["membership.changed"],
  },
  // Reads hostile files: it publishes nothing, and hears only what invalidates its caches (queues, page permissions).
  extraction: {
    publishes: [],
    consumes: ["document.created", "document.status_changed", "queue.deleted", "documents.purged"],
    hears: ["configuration.changed", "queue.deleted", "membership.changed"],
  },
  audit: {
    publishes: [],
    consumes: [">"],
    hears: [],
  },
  // Takes mail from the internet: it hands documents to document over gRPC, and nothing goes over the stream.
  intake: {
    publishes: [],
    consumes: [],
    hears: [],
  },
} as const satisfies Record<EventService, ServiceEvents>;

/** The services allowed to publish `type`. */
export function publishersOf(type: EventType): EventService[] {
  return EVENT_SERVICES.filter((service) => (SERVICE_EVENTS[service].publishes as readonly EventType[]).includes(type));
}

/** Event types no service publishes: none may exist, or its consumers would wait forever. */
export function eventTypesWithoutPublisher(): EventType[] {
  return EVENT_TYPES.filter((type) => publishersOf(type).length === 0);
}
