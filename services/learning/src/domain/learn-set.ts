import { locateKey, type SchemaField, typeProblem } from "@docex/annotations";
import { type FieldError, ValidationError } from "@docex/kit/errors";
import { fieldErrorsOf } from "@docex/kit/validation";
import { z } from "zod";
import { isTable } from "./annotation-schema.js";
import type { FieldContent } from "./records.js";

/** The spec's value object of the learn request: snake_case, strict so that a misspelt property is a 400. */
const valueObject = z.strictObject({
  value: z.string().max(10_000),
  numeric_value: z.number().optional(),
  iso_date_value: z.iso.date().optional(),
});
type ValueObject = z.infer<typeof valueObject>;

/** The annotation set as the HTTP edge hands it over: field keys mapping to arrays, not yet checked against a schema. */
export type LearnSet = Record<string, unknown[]>;

/** A confirmed value of a field that is not a table. */
export interface ConfirmedField {
  key: string;
  content: FieldContent;
}

function valueObjects(entries: unknown[], at: string, errors: FieldError[]): ValueObject[] {
  const checked: ValueObject[] = [];
  entries.forEach((entry, index) => {
    const result = valueObject.safeParse(entry);
    if (result.success) checked.push(result.data);
    else errors.push(...fieldErrorsOf(result.error, `${at}.${index}`));
  });
  return checked;
}

/** Checks the text of every entry that has one, well formed or not, so that one answer names every bad value. */
function checkTyped(type: string, entries: unknown[], at: string, errors: FieldError[]): void {
  entries.forEach((entry, index) => {
    const text = (entry as { value?: unknown } | null)?.value;
    const problem = typeof text === "string" ? typeProblem(type, text) : undefined;
    if (problem) errors.push({ path: `${at}.${index}.value`, message: problem });
  });
}

function checkRows(table: SchemaField, rows: unknown[], at: string, errors: FieldError[]): void {
  const columns = new Map((table.columns ?? []).map((column) => [column.key, column]));
  rows.forEach((row, rowIndex) => {
    const rowPath = `${at}.${rowIndex}`;
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      errors.push({ path: rowPath, message: `a row of ${table.key} is an object mapping column keys to arrays of values` });
      return;
    }
    for (const [columnKey, cells] of Object.entries(row)) {
      const cellPath = `${rowPath}.${columnKey}`;
      const column = columns.get(columnKey);
      if (!column) {
        errors.push({ path: cellPath, message: `unknown column "${columnKey}" of ${table.key}` });
        continue;
      }
      if (!Array.isArray(cells)) {
        errors.push({ path: cellPath, message: "expected an array of value objects" });
        continue;
      }
      if (cells.length > 1) errors.push({ path: cellPath, message: `a cell of ${table.key} holds one value` });
      valueObjects(cells, cellPath, errors);
      checkTyped(column.type, cells, cellPath, errors);
    }
  });
}

/**
 * Checks a learn request's annotation set against the queue's schema: every key a field of the queue, value
 * objects well formed, numbers and dates readable (by the document service's rules), one value unless the
 * field is multi-value, table rows made of the table's columns. Every problem is collected into one 400 whose
 * paths name the field (`annotations.total_due.0.value`). Returns the confirmed values of the fields that
 * are not tables.
 */
export function checkLearnSet(schema: readonly SchemaField[], set: LearnSet, path = "annotations"): ConfirmedField[] {
  const errors: FieldError[] = [];
  const confirmed: ConfirmedField[] = [];
  for (const [key, entries] of Object.entries(set)) {
    const at = `${path}.${key}`;
    const location = locateKey(schema, key);
    if (!location) {
      errors.push({ path: at, message: `unknown field key "${key}": the queue's annotation schema has no such field` });
      continue;
    }
    if (location.kind === "column") {
      errors.push({ path: at, message: `"${key}" is a column of ${location.table.key}; send it inside that field's rows` });
      continue;
    }
    const field = location.field;
    if (isTable(field)) {
      checkRows(field, entries, at, errors);
      continue;
    }
    const values = valueObjects(entries, at, errors);
    if (entries.length > 1 && !field.multi_value) errors.push({ path: at, message: `${key} is not a multi-value field; send one value` });
    checkTyped(field.type, entries, at, errors);
    const [first, ...rest] = values;
    confirmed.push({ key, content: { value: first?.value ?? "", values: rest.map((value) => value.value) } });
  }
  if (errors.length)
    throw new ValidationError("The annotations do not match the queue's annotation schema.", errors, "invalid_annotations");
  return confirmed;
}

/** The text of the first value the set gives for `key`: null when the set has the key without a value, undefined without the key. */
export function firstTextOf(set: LearnSet, key: string): string | null | undefined {
  if (!(key in set)) return undefined;
  const first = set[key]?.[0] as { value?: unknown } | undefined;
  return typeof first?.value === "string" && first.value.trim() !== "" ? first.value.trim() : null;
}
