import { z } from "zod";

const fraction = z.number().min(0).max(1);

/**
 * Where on a page a value was read: `box` is [left, top, right, bottom], fractions (0..1) of the page's width and
 * height from its top-left corner. Absent for values no page shows (typed by a person, learned, from an XML file).
 */
export const positionSchema = z
  .strictObject({
    page: z.number().int().min(1).max(100_000),
    box: z.tuple([fraction, fraction, fraction, fraction]),
  })
  .refine(({ box: [left, top, right, bottom] }) => left <= right && top <= bottom, {
    message: "box is [left, top, right, bottom] with left <= right and top <= bottom",
    path: ["box"],
  });

/** One value of a field: an extra value of a multi-value field, or one cell of a table row. */
export const annotationValueSchema = z.object({
  value: z.string(),
  numericValue: z.number().optional(),
  isoDateValue: z.iso.date().optional(),
  position: positionSchema.optional(),
});

/**
 * An extracted field in the webhook form of API.md (camelCase, as integrators receive it). Not to be
 * confused with a queue's annotation schema, which declares the fields.
 */
export const annotationSchema = z.object({
  key: z.string().min(1),
  value: z.string(),
  values: z.array(annotationValueSchema).optional(),
  numericValue: z.number().optional(),
  isoDateValue: z.iso.date().optional(),
  /** Percentage 0-100. */
  confidence: z.number().min(0).max(100).optional(),
  /** Who set the value, e.g. "ai", "user", "learned", "automation", "validation". */
  source: z.string().min(1).optional(),
  position: positionSchema.optional(),
  /** Table fields (line_items): one object per row, keyed by column key. */
  rows: z.array(z.record(z.string(), annotationValueSchema)).optional(),
});

export type AnnotationValue = z.infer<typeof annotationValueSchema>;
export type Position = z.infer<typeof positionSchema>;
export type Annotation = z.infer<typeof annotationSchema>;

/** The longest text a value may carry. */
const MAX_TEXT = 10_000;

/*
 * The one list of an annotation's properties. Each form below is made from it and differs only in what it does with a
 * property it does not know, so a property added here is accepted, passed on and read everywhere at once (the check
 * under the forms keeps `annotationSchema`, the stored form, to the same names).
 */
const valueProperties = {
  value: z.string().max(MAX_TEXT),
  numericValue: z.number().optional(),
  isoDateValue: z.string().optional(),
  position: positionSchema.optional(),
};
function annotationProperties<V extends z.ZodType>(value: V) {
  return {
    key: z.string().min(1).max(64),
    value: z.string().max(MAX_TEXT).default(""),
    values: z.array(value).max(100).optional(),
    numericValue: z.number().optional(),
    isoDateValue: z.string().optional(),
    confidence: z.number().min(0).max(100).optional(),
    source: z.string().min(1).max(50).optional(),
    /** Where a page shows the value (the engine's reading, or the word a person clicked to fill it). */
    position: positionSchema.optional(),
    rows: z.array(z.record(z.string(), value)).max(2_000).optional(),
  };
}

/**
 * An annotation as clients send it over HTTP (webhook form of API.md). Strict, so a misspelt property is a 400
 * instead of silently dropped. `numericValue` and `isoDateValue` are accepted but recomputed from `value` by the
 * document service: the text is what a person sees and edits.
 */
export const annotationInput = z.strictObject(annotationProperties(z.strictObject(valueProperties)));
export const annotationsInput = z.array(annotationInput).max(500);
/** An annotation after its input schema: what the document service's checks take. Stored annotations fit it too. */
export type AnnotationFields = z.output<typeof annotationInput>;

/**
 * An annotation as the document service (its owner) receives it from another service over gRPC: a property it does not
 * know yet (a newer sender) is dropped instead of failing the call, so services can be deployed in any order.
 */
export const annotationFromService = z.object(annotationProperties(z.object(valueProperties)));
export const annotationsFromService = z.array(annotationFromService).max(500);

/**
 * An annotation as a consumer reads it (GetDocument, PlanApprovalRoute): checked for the properties it uses, and a
 * property it does not know (a newer document service) is kept, so what it passes on loses nothing.
 */
export const annotationReader = z.looseObject(annotationProperties(z.looseObject(valueProperties)));
export const annotationsReader = z.array(annotationReader);

/** Compile-time: the stored form names the same properties as the forms above (one list, two precisions). */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
const sameAnnotationKeys: SameKeys<Annotation, AnnotationFields> = true;
const sameValueKeys: SameKeys<AnnotationValue, NonNullable<AnnotationFields["values"]>[number]> = true;
void sameAnnotationKeys;
void sameValueKeys;

/** Reads a document's annotations_json (GetDocument; empty text is none); throws when it is not annotations. */
export function readAnnotations(json: string): z.output<typeof annotationsReader> {
  return annotationsReader.parse(JSON.parse(json || "[]"));
}
