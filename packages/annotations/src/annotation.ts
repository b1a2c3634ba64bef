import { z } from "zod";

/** One value of a field: an extra value of a multi-value field, or one cell of a table row. */
export const annotationValueSchema = z.object({
  value: z.string(),
  numericValue: z.number().optional(),
  isoDateValue: z.iso.date().optional(),
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
  /** Table fields (line_items): one object per row, keyed by column key. */
  rows: z.array(z.record(z.string(), annotationValueSchema)).optional(),
});

export type AnnotationValue = z.infer<typeof annotationValueSchema>;
export type Annotation = z.infer<typeof annotationSchema>;
