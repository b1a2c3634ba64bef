import { firstOf, firstValuePageQuery } from "@docex/kit/http";
import { z } from "zod";
import { type ItemInput, UPLOAD_METHODS, type UploadEntry } from "../domain/records.js";

const itemText = z.string().max(2_000).nullable().optional();

const jsonObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected a JSON object",
);

const itemSchema = z.strictObject({
  // The value is the item's key (in an index entry), hence its tighter bound.
  value: z.string().min(1).max(500),
  label: itemText,
  name: itemText,
  register_id: itemText,
  tax_id: itemText,
  data: jsonObject.nullable().optional(),
});

const NUL = "\u0000";

function containsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes(NUL);
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some(containsNul);
  return Object.entries(value).some(([key, inner]) => key.includes(NUL) || containsNul(inner));
}

const uploadEntrySchema = z
  .strictObject({
    queue_id: z.string().trim().min(1).max(100),
    method: z.enum(UPLOAD_METHODS),
    name: z.string().trim().min(1).max(200),
    items: z.array(itemSchema),
  })
  // Postgres text cannot hold NUL; saying so beats a 500. One pass per element rather than one check per
  // field keeps a 100,000-item upload's validation cheap.
  .superRefine((entry, context) => {
    for (const field of ["queue_id", "name"] as const) {
      if (entry[field].includes(NUL)) context.addIssue({ code: "custom", path: [field], message: "must not contain the NUL character" });
    }
    entry.items.forEach((item, index) => {
      for (const [field, value] of Object.entries(item)) {
        if (containsNul(value))
          context.addIssue({ code: "custom", path: ["items", index, field], message: "must not contain the NUL character" });
      }
    });
  });

/** The body of POST /registers: at least one UploadRegisterRequest. */
export const uploadBody = z.array(uploadEntrySchema).min(1, "at least one register upload is required");

/** The number of items a body claims to carry, counted before the body is validated item by item. */
export function claimedItemCount(body: unknown): number {
  if (!Array.isArray(body)) return 0;
  let count = 0;
  for (const entry of body) {
    const items = (entry as { items?: unknown } | null)?.items;
    if (Array.isArray(items)) count += items.length;
  }
  return count;
}

export function uploadEntriesOf(body: z.output<typeof uploadBody>): UploadEntry[] {
  return body.map((entry) => ({
    queueRef: entry.queue_id,
    method: entry.method,
    name: entry.name,
    items: entry.items.map(
      (item): ItemInput => ({
        value: item.value,
        label: item.label ?? null,
        name: item.name ?? null,
        registerNumber: item.register_id ?? null,
        taxId: item.tax_id ?? null,
        data: item.data ?? {},
      }),
    ),
  }));
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export const itemsQuery = firstValuePageQuery.extend({
  // Control characters cannot be typed into a search box, and one of them separates the searched fields.
  q: z.preprocess(
    firstOf,
    z
      .string()
      .trim()
      .max(200)
      .refine((q) => !hasControlCharacter(q), "must not contain control characters")
      .optional()
      .transform((q) => q || undefined),
  ),
});
