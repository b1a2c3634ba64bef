import { z } from "zod";
import { VISIBILITIES } from "../domain/records.js";

const visibility = z.enum(VISIBILITIES).nullable().optional();

/**
 * POST /documents/{document_id}/learn. The shape only: field keys mapping to arrays. Whether each key is a
 * field of the queue, and each entry a value object or a table row, is decided against the queue's schema.
 */
export const learnBody = z.strictObject({
  annotations: z
    .record(z.string().min(1).max(64), z.array(z.unknown()).max(2_000))
    .describe(
      "The annotation set: each field key maps to an array of {value, numeric_value?, iso_date_value?}; line_items maps to " +
        "an array of rows, each mapping a column key to such an array. Keys must be fields of the queue's annotation schema.",
    ),
  line_items_visibility: visibility,
  tax_detail_visibility: visibility,
});

const identifier = z.string().max(500).nullable();

/** The spec's relearn input: all five fields present, nulls where nothing is meant. */
export const relearnBody = z
  .strictObject({
    name: identifier,
    register_id: identifier,
    tax_id: identifier,
    value: z.string().max(10_000).nullable(),
    field_key: z.string().min(1).max(64),
  })
  .superRefine((body, ctx) => {
    const named = [body.tax_id, body.register_id, body.name].some((text) => text !== null && text.trim() !== "");
    if (named) return;
    for (const path of ["tax_id", "register_id", "name"])
      ctx.addIssue({ code: "custom", path: [path], message: "at least one of tax_id, register_id and name must name the supplier" });
  })
  .describe(
    "Relearn input: all five fields present, null where nothing is meant; at least one of tax_id, register_id and name is not empty",
  );
