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
