import { z } from "zod";

/*
 * The queue's annotation schema, as the document service hands it over (GetQueue's annotation_schema_json).
 * The document service owns and checks it; learning reads only what it needs and tolerates additions.
 */
const columnDefinition = z.object({ key: z.string(), type: z.string() });
const fieldDefinition = z.object({
  key: z.string(),
  type: z.string(),
  multi_value: z.boolean().optional(),
  columns: z.array(columnDefinition).optional(),
});

export type ColumnDefinition = z.infer<typeof columnDefinition>;
export type FieldDefinition = z.infer<typeof fieldDefinition>;

export const annotationSchemaOf = z.array(fieldDefinition);

/** A queue as learning needs it. */
export interface QueueView {
  id: string;
  organizationId: string;
  schema: FieldDefinition[];
}

/** Where a key lives in a schema: a field, or a column of a table field. */
export type KeyLocation = { kind: "field"; field: FieldDefinition } | { kind: "column"; table: FieldDefinition; column: ColumnDefinition };

export function locateKey(schema: readonly FieldDefinition[], key: string): KeyLocation | undefined {
  for (const field of schema) {
    if (field.key === key) return { kind: "field", field };
    const column = field.columns?.find((candidate) => candidate.key === key);
    if (column) return { kind: "column", table: field, column };
  }
  return undefined;
}

export function isTable(field: FieldDefinition): boolean {
  return field.type === "table";
}
