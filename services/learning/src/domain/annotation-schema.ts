import type { SchemaField } from "@docex/annotations";

/** A queue as learning needs it: its annotation schema as the document service hands it over (GetQueue). */
export interface QueueView {
  id: string;
  organizationId: string;
  schema: SchemaField[];
}

export function isTable(field: SchemaField): boolean {
  return field.type === "table";
}
