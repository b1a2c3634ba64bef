import type { SchemaField } from "@docex/annotations";

/** A queue as learning needs it: its annotation schema as the document service hands it over (GetQueue). */
export interface QueueView {
  id: string;
  organizationId: string;
  schema: SchemaField[];
  /** The queue option: people's confirmations in validation feed the memory without a `/learn` call. */
  learnFromValidation: boolean;
}

export function isTable(field: SchemaField): boolean {
  return field.type === "table";
}
