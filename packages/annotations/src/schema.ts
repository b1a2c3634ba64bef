import { z } from "zod";

/** A queue's declaration of the fields its documents carry (not to be confused with an Annotation, a field's value). */
export const FIELD_TYPES = ["string", "number", "date", "enum", "table"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const COLUMN_TYPES = ["string", "number", "date", "enum"] as const;
export type ValueType = (typeof COLUMN_TYPES)[number];

export const FIELD_KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const fieldKey = z
  .string()
  .regex(FIELD_KEY_PATTERN, "must be a lowercase key of letters, digits and _ starting with a letter (at most 64)");
const label = z.string().trim().min(1).max(200);
const registerId = z.string().min(1).max(200);

export const columnDefinitionSchema = z.strictObject({
  key: fieldKey,
  label,
  type: z.enum(COLUMN_TYPES),
  register_id: registerId.optional(),
});

/** One field a queue's documents carry (not its value: that is an Annotation); queues' answers describe theirs with it too. */
export const fieldDefinitionSchema = z.strictObject({
  key: fieldKey,
  label,
  type: z.enum(FIELD_TYPES),
  multi_value: z.boolean().optional(),
  columns: z.array(columnDefinitionSchema).min(1).max(100).optional().describe("The columns of a table field"),
  register_id: registerId.optional(),
});

export type ColumnDefinition = z.infer<typeof columnDefinitionSchema>;
export type FieldDefinition = z.infer<typeof fieldDefinitionSchema>;

/**
 * A queue's annotation schema as accepted at creation. Keys are unique across fields and table columns
 * together, so a key names one thing wherever it appears (user schemas, cell replacements, evaluation fields).
 */
export const annotationSchemaInput = z
  .array(fieldDefinitionSchema)
  .min(1)
  .max(200)
  .superRefine(
    (fields, ctx) => {
      const seen = new Map<string, string>();
      const claim = (key: unknown, path: (string | number)[]) => {
        if (typeof key !== "string") return;
        const first = seen.get(key);
        if (first) ctx.addIssue({ code: "custom", path, message: `key "${key}" is already used by ${first}` });
        else seen.set(key, path.join("."));
      };
      // Runs even when some entries failed their own schema, so one answer lists every problem: look before touching.
      (fields as unknown[]).forEach((entry, index) => {
        if (typeof entry !== "object" || entry === null) return;
        const field = entry as Partial<FieldDefinition>;
        claim(field.key, [index, "key"]);
        if (field.type === "table") {
          if (!field.columns) ctx.addIssue({ code: "custom", path: [index, "columns"], message: "a table field needs columns" });
          if (field.multi_value)
            ctx.addIssue({ code: "custom", path: [index, "multi_value"], message: "a table field cannot be multi-value" });
        } else if (field.columns !== undefined) {
          ctx.addIssue({ code: "custom", path: [index, "columns"], message: "only a table field has columns" });
        }
        if (Array.isArray(field.columns)) {
          field.columns.forEach((column, columnIndex) => {
            if (typeof column === "object" && column !== null) claim(column.key, [index, "columns", columnIndex, "key"]);
          });
        }
      });
    },
    { when: (payload) => Array.isArray(payload.value) },
  );

/**
 * API.md: the spec's keys (iban, bank_account, total_due, due_date, invoice_id, contract, line_items with activity and
 * total_incl_tax), the supplier fields learning identifies suppliers by, and every other field and column the built-in
 * engine fills, in the order a person checks an invoice: the document, the parties, payment, amounts, tables.
 */
export const DEFAULT_ANNOTATION_SCHEMA: readonly FieldDefinition[] = [
  { key: "invoice_id", label: "Invoice number", type: "string" },
  { key: "document_type", label: "Document type", type: "string" },
  { key: "issue_date", label: "Issue date", type: "date" },
  { key: "taxable_supply_date", label: "Taxable supply date", type: "date" },
  { key: "due_date", label: "Due date", type: "date" },
  { key: "supplier_name", label: "Supplier name", type: "string" },
  { key: "supplier_tax_id", label: "Supplier tax ID", type: "string" },
  { key: "supplier_register_id", label: "Supplier register ID", type: "string" },
  { key: "buyer_name", label: "Buyer name", type: "string" },
  { key: "buyer_tax_id", label: "Buyer tax ID", type: "string" },
  { key: "iban", label: "IBAN", type: "string" },
  { key: "bank_account", label: "Bank account", type: "string", multi_value: true },
  { key: "variable_symbol", label: "Variable symbol", type: "string" },
  { key: "currency", label: "Currency", type: "string" },
  { key: "total_without_tax", label: "Total without tax", type: "number" },
  { key: "total_tax", label: "Total tax", type: "number" },
  { key: "total_due", label: "Total due", type: "number" },
  { key: "contract", label: "Contract", type: "string" },
  {
    key: "tax_details",
    label: "VAT breakdown",
    type: "table",
    columns: [
      { key: "rate", label: "VAT rate (%)", type: "number" },
      { key: "base", label: "Tax base", type: "number" },
      { key: "tax", label: "Tax", type: "number" },
    ],
  },
  {
    key: "line_items",
    label: "Line items",
    type: "table",
    columns: [
      { key: "activity", label: "Activity", type: "string" },
      { key: "quantity", label: "Quantity", type: "number" },
      { key: "unit_price", label: "Unit price", type: "number" },
      { key: "vat_rate", label: "VAT rate (%)", type: "number" },
      { key: "total_incl_tax", label: "Total incl. tax", type: "number" },
    ],
  },
];

/**
 * A field as a consumer of GetQueue's annotation_schema_json reads it: the document service owns and checks the
 * schema, so readers need only the key, the type and the shape, and tolerate additions.
 */
export const schemaFieldReader = z.looseObject({
  key: z.string(),
  type: z.string(),
  multi_value: z.boolean().optional(),
  columns: z.array(z.looseObject({ key: z.string(), type: z.string() })).optional(),
});
export type SchemaField = z.infer<typeof schemaFieldReader>;

/** Reads GetQueue's annotation_schema_json (empty text is an empty schema); throws when it is not a schema. */
export function readAnnotationSchema(json: string): SchemaField[] {
  return z.array(schemaFieldReader).parse(JSON.parse(json || "[]"));
}

/**
 * A field as automation reads GetQueue's annotation_schema_json: the whole definition (its rules name labels and
 * types), checked for what it uses; a property it does not know yet (a newer document service) is kept, not refused.
 */
export const fieldDefinitionReader = z.looseObject({
  key: z.string().min(1),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  multi_value: z.boolean().optional(),
  columns: z
    .array(z.looseObject({ key: z.string().min(1), label: z.string(), type: z.enum(COLUMN_TYPES), register_id: z.string().optional() }))
    .optional(),
  register_id: z.string().optional(),
});

/** Reads GetQueue's annotation_schema_json as whole definitions (empty text is an empty schema); throws when it is not a schema. */
export function readFieldDefinitions(json: string): FieldDefinition[] {
  return z.array(fieldDefinitionReader).parse(JSON.parse(json || "[]"));
}

/** What `locateKey` needs of a field: its key and, for a table, its columns' keys. */
export interface KeyedField {
  key: string;
  columns?: readonly { key: string }[] | undefined;
}
type ColumnOf<F extends KeyedField> = NonNullable<F["columns"]>[number];

/** Where a key lives in a schema: a field, or a column of a table field. Keys are unique across both. */
export type KeyLocation<F extends KeyedField = FieldDefinition> =
  | { kind: "field"; field: F }
  | { kind: "column"; table: F; column: ColumnOf<F> };

export function locateKey<F extends KeyedField>(schema: readonly F[], key: string): KeyLocation<F> | undefined {
  for (const field of schema) {
    if (field.key === key) return { kind: "field", field };
    const column = field.columns?.find((candidate) => candidate.key === key);
    if (column) return { kind: "column", table: field, column };
  }
  return undefined;
}

/** The type of the values a key holds: a column's type, or the field's. */
export function valueTypeOf<F extends KeyedField & { type: string; columns?: readonly { key: string; type: string }[] | undefined }>(
  location: KeyLocation<F>,
): F["type"] | ColumnOf<F>["type"] {
  return location.kind === "column" ? location.column.type : location.field.type;
}
