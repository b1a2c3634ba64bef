/*
 * Compiled by types-match-events.test.ts, never run: every line fails to compile when a type of the kit
 * differs from what docex's own zod schemas (@docex/events, @docex/annotations) accept and produce.
 */
import type * as annotations from "@docex/annotations";
import type * as events from "@docex/events";
import type * as kit from "../../src/index.js";

/** True only when A and B are the same type (not merely assignable either way). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

type ArrayForm = Extract<events.ValidationAnswer, unknown[]>;
type ObjectForm = Exclude<events.ValidationAnswer, unknown[]>;

export type Checks = [
  Assert<Equals<kit.WebhookEvent, events.WebhookType>>,
  Assert<Equals<kit.Severity, (typeof events.SEVERITIES)[number]>>,
  Assert<Equals<kit.AnnotationValue, annotations.AnnotationValue>>,
  Assert<Equals<kit.Annotation, annotations.Annotation>>,
  Assert<Equals<kit.Position, annotations.Position>>,
  Assert<Equals<kit.DocumentStatusChangedPayload, events.DocumentStatusChangedPayload>>,
  Assert<Equals<kit.QueueCreatedPayload, events.QueueCreatedPayload>>,
  Assert<Equals<kit.ValidationRequestPayload, events.ValidationRequestPayload>>,
  Assert<Equals<kit.ValidationMessage, NonNullable<events.ValidationAnswerObject["validationResults"]>[number]>>,
  Assert<Equals<kit.CellReplacement, NonNullable<events.ValidationAnswerObject["results"]>[number]>>,
  Assert<Equals<kit.RegisterOption, NonNullable<events.ValidationAnswerObject["options"]>[number]>>,
  Assert<Equals<kit.ValidationAnswerObject, events.ValidationAnswerObject>>,
  Assert<Equals<kit.ValueReplacement, ArrayForm[number]>>,
  Assert<Equals<kit.ValidationAnswerList, ArrayForm>>,
  Assert<Equals<kit.ValidationAnswerResults, ObjectForm>>,
  Assert<Equals<kit.ValidationAnswer, events.ValidationAnswer>>,
];

// The check itself must be able to fail: an optional field is not a required one, a wider enum is not the enum.
export type CheckCanFail = [
  // @ts-expect-error
  Assert<Equals<{ value: string }, { value?: string }>>,
  // @ts-expect-error
  Assert<Equals<kit.Severity, kit.Severity | "debug">>,
];
