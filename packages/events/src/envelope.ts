import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  automationAppliedData,
  configurationChangedData,
  documentAnnotationsChangedData,
  documentApprovedData,
  documentCreatedData,
  documentExtractedData,
  documentStatusChangedData,
  documentsPurgedData,
  learningFeedbackData,
  loginAttemptedData,
  mailRequestedData,
  memberPersonalDataErasedData,
  membershipChangedData,
  organizationCreatedData,
  queueCreatedData,
  queueDeletedData,
  registerUpdatedData,
  userOnboardedData,
  userPersonalDataErasedData,
  uuidSchema,
  workspaceDeletedData,
} from "./event-data.js";

/** The JetStream stream every event is published to. */
export const STREAM_NAME = "DOCEX";

export const EVENT_TYPES = [
  "auth.user_onboarded",
  "auth.mail_requested",
  "auth.login_attempted",
  "membership.changed",
  "organization.created",
  "queue.created",
  "queue.deleted",
  "workspace.deleted",
  "document.created",
  "document.extracted",
  "document.annotations_changed",
  "document.status_changed",
  "document.approved",
  "automation.applied",
  "learning.feedback",
  "register.updated",
  "configuration.changed",
  "user.personal_data_erased",
  "member.personal_data_erased",
  "documents.purged",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const eventDataSchemas = {
  "auth.user_onboarded": userOnboardedData,
  "auth.mail_requested": mailRequestedData,
  "auth.login_attempted": loginAttemptedData,
  "membership.changed": membershipChangedData,
  "organization.created": organizationCreatedData,
  "queue.created": queueCreatedData,
  "queue.deleted": queueDeletedData,
  "workspace.deleted": workspaceDeletedData,
  "document.created": documentCreatedData,
  "document.extracted": documentExtractedData,
  "document.annotations_changed": documentAnnotationsChangedData,
  "document.status_changed": documentStatusChangedData,
  "document.approved": documentApprovedData,
  "automation.applied": automationAppliedData,
  "learning.feedback": learningFeedbackData,
  "register.updated": registerUpdatedData,
  "configuration.changed": configurationChangedData,
  "user.personal_data_erased": userPersonalDataErasedData,
  "member.personal_data_erased": memberPersonalDataErasedData,
  "documents.purged": documentsPurgedData,
} as const satisfies Record<EventType, z.ZodType>;

export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

/** The envelope with its data left unchecked; parseEvent checks data against the schema of the type. */
export const eventEnvelopeSchema = z.object({
  id: uuidSchema,
  type: z.enum(EVENT_TYPES),
  occurred_at: z.iso.datetime({ offset: true }),
  /** Null for events outside any organization, e.g. most mail. */
  organization_id: uuidSchema.nullable(),
  request_id: z.string().min(1).optional(),
  /** The user whose request caused the event; absent or null when the system acted on its own. */
  actor_user_id: uuidSchema.nullable().optional(),
  data: z.unknown(),
});

/** An event of type T; without T, the union of all events, which narrows on `type`. */
export type DocexEvent<T extends EventType = EventType> = T extends EventType
  ? {
      id: string;
      type: T;
      occurred_at: string;
      organization_id: string | null;
      request_id?: string;
      actor_user_id?: string | null;
      data: EventData<T>;
    }
  : never;

export type EventSubject<T extends EventType = EventType> = `docex.${T}`;

/** Subjects the DOCEX stream captures. */
export const STREAM_SUBJECTS = ["docex.>"] as const;

export function eventSubject<T extends EventType>(type: T): EventSubject<T> {
  return `docex.${type}`;
}

export interface EventIssue {
  /** Dotted path into the envelope, e.g. "data.status"; empty for the envelope itself. */
  path: string;
  message: string;
}

export class EventValidationError extends Error {
  constructor(
    readonly eventType: string | undefined,
    readonly issues: EventIssue[],
  ) {
    const what = eventType ? `event ${eventType}` : "event";
    super(`Invalid ${what}: ${issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ")}`);
    this.name = "EventValidationError";
  }
}

function issuesOf(error: z.ZodError, prefix: string[] = []): EventIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}

export interface CreateEventInput<T extends EventType> {
  organization_id: string | null;
  data: EventData<T>;
  request_id?: string;
  actor_user_id?: string | null;
}

/** A new, validated event with a fresh id and the current time. Throws EventValidationError on bad data. */
export function createEvent<T extends EventType>(type: T, input: CreateEventInput<T>): DocexEvent<T> {
  return parseEvent(
    {
      id: randomUUID(),
      type,
      occurred_at: new Date().toISOString(),
      organization_id: input.organization_id,
      ...(input.request_id === undefined ? {} : { request_id: input.request_id }),
      ...(input.actor_user_id === undefined ? {} : { actor_user_id: input.actor_user_id }),
      data: input.data,
    },
    type,
  );
}

/**
 * Checks an event received from the stream (already JSON-decoded) and returns it typed. With expectedType, an event
 * of another type is rejected too. Throws EventValidationError naming every bad field.
 */
export function parseEvent(raw: unknown): DocexEvent;
export function parseEvent<T extends EventType>(raw: unknown, expectedType: T): DocexEvent<T>;
export function parseEvent(raw: unknown, expectedType?: EventType): DocexEvent {
  const envelope = eventEnvelopeSchema.safeParse(raw);
  if (!envelope.success) {
    const type = typeof raw === "object" && raw !== null && "type" in raw ? String(raw.type) : undefined;
    throw new EventValidationError(type, issuesOf(envelope.error));
  }
  const { type } = envelope.data;
  if (expectedType !== undefined && type !== expectedType) {
    throw new EventValidationError(type, [{ path: "type", message: `expected ${expectedType}` }]);
  }
  const data = eventDataSchemas[type].safeParse(envelope.data.data);
  if (!data.success) throw new EventValidationError(type, issuesOf(data.error, ["data"]));
  return { ...envelope.data, data: data.data } as DocexEvent;
}
