import {
  type AnnotationFields,
  type FieldDefinition,
  locateKey,
  type Position,
  parseDate,
  parseNumber,
  type ValueType,
} from "@docex/annotations";
import { type FieldError, ValidationError } from "@docex/kit/errors";
import type { Annotation } from "./records.js";

type AnnotationValue = NonNullable<Annotation["values"]>[number];

// The shape of an annotation is @docex/annotations' (one list of properties, in every form).
export { type AnnotationFields, annotationInput, annotationsInput } from "@docex/annotations";

function typed(type: ValueType, value: string, path: string, errors: FieldError[]): Pick<Annotation, "numericValue" | "isoDateValue"> {
  if (value.trim() === "") return {};
  if (type === "number") {
    const numericValue = parseNumber(value);
    if (numericValue === undefined) errors.push({ path, message: `"${value}" is not a number` });
    return numericValue === undefined ? {} : { numericValue };
  }
  if (type === "date") {
    const isoDateValue = parseDate(value);
    if (isoDateValue === undefined) errors.push({ path, message: `"${value}" is not a date (YYYY-MM-DD, D.M.YYYY or D/M/YYYY)` });
    return isoDateValue === undefined ? {} : { isoDateValue };
  }
  return {};
}

function typedValueOf(type: ValueType, input: { value: string; position?: Position }, path: string, errors: FieldError[]): AnnotationValue {
  return {
    value: input.value,
    ...typed(type, input.value, `${path}.value`, errors),
    ...(input.position ? { position: input.position } : {}),
  };
}

function checkOne(field: FieldDefinition, input: AnnotationFields, at: string, errors: FieldError[]): Annotation {
  const annotation: Annotation = { key: field.key, value: input.value };
  if (field.type === "table") {
    if (input.values?.length) errors.push({ path: `${at}.values`, message: "a table field has rows, not values" });
    const columns = new Map((field.columns ?? []).map((column) => [column.key, column]));
    annotation.rows = (input.rows ?? []).map((row, rowIndex) => {
      const cells: Record<string, AnnotationValue> = {};
      for (const [columnKey, cell] of Object.entries(row)) {
        const column = columns.get(columnKey);
        const cellPath = `${at}.rows.${rowIndex}.${columnKey}`;
        if (!column) errors.push({ path: cellPath, message: `unknown column "${columnKey}" of ${field.key}` });
        else cells[columnKey] = typedValueOf(column.type, cell, cellPath, errors);
      }
      return cells;
    });
  } else {
    Object.assign(annotation, typed(field.type, input.value, `${at}.value`, errors));
    if (input.rows) errors.push({ path: `${at}.rows`, message: "only a table field has rows" });
    if (input.values?.length) {
      if (!field.multi_value) errors.push({ path: `${at}.values`, message: `${field.key} is not a multi-value field` });
      else
        annotation.values = input.values.map((value, index) =>
          typedValueOf(field.type as ValueType, value, `${at}.values.${index}`, errors),
        );
    }
  }
  // The rest (confidence, source, position, and whatever @docex/annotations adds to the shape) is kept as sent: only
  // the value and its typed readings are checked against the schema here.
  const { key: _key, value: _value, values: _values, rows: _rows, numericValue: _numeric, isoDateValue: _isoDate, ...rest } = input;
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) Object.assign(annotation, { [name]: value });
  return annotation;
}

/**
 * Checks annotations against a queue's schema and derives `numericValue` / `isoDateValue` from the text.
 * Every problem is collected, so one 400 names every bad field.
 */
export function checkAnnotations(
  schema: readonly FieldDefinition[],
  inputs: readonly AnnotationFields[],
  path = "annotations",
): Annotation[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const checked: Annotation[] = [];
  inputs.forEach((input, index) => {
    const at = `${path}.${index}`;
    if (seen.has(input.key)) {
      errors.push({ path: `${at}.key`, message: `"${input.key}" appears more than once` });
      return;
    }
    seen.add(input.key);
    const location = locateKey(schema, input.key);
    if (!location) {
      errors.push({ path: `${at}.key`, message: `unknown field key "${input.key}": the queue's annotation schema has no such field` });
      return;
    }
    if (location.kind === "column") {
      errors.push({ path: `${at}.key`, message: `"${input.key}" is a column of ${location.table.key}; send it inside that field's rows` });
      return;
    }
    checked.push(checkOne(location.field, input, at, errors));
  });
  if (errors.length)
    throw new ValidationError("The annotations do not match the queue's annotation schema.", errors, "invalid_annotations");
  return checked;
}

/** What a person sees of an annotation: its texts. Confidence, source and derived values do not make it different. */
function contentOf(annotation: Annotation | undefined): string {
  if (!annotation) return JSON.stringify(null);
  return JSON.stringify([
    annotation.value,
    (annotation.values ?? []).map((value) => value.value),
    (annotation.rows ?? []).map((row) =>
      Object.entries(row)
        .filter(([, cell]) => cell.value !== "")
        .map(([column, cell]) => [column, cell.value])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ),
  ]);
}

export function sameContent(a: Annotation | undefined, b: Annotation | undefined): boolean {
  return contentOf(a) === contentOf(b);
}

export function sameAnnotations(a: readonly Annotation[], b: readonly Annotation[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Puts annotations in the order of the schema's fields, so a document always reads the same way. */
function inSchemaOrder(schema: readonly FieldDefinition[], annotations: Annotation[]): Annotation[] {
  const position = new Map(schema.map((field, index) => [field.key, index]));
  const rank = (key: string) => position.get(key) ?? Number.MAX_SAFE_INTEGER;
  return [...annotations].sort((a, b) => rank(a.key) - rank(b.key));
}

/**
 * The annotations after `changes`: each change replaces the annotation of its key, keys not named stay.
 * `stamp` lets the caller mark a changed annotation (its source) given what it replaced.
 */
export function mergeAnnotations(
  schema: readonly FieldDefinition[],
  current: readonly Annotation[],
  changes: readonly Annotation[],
  stamp: (changed: Annotation, previous: Annotation | undefined) => Annotation = (changed) => changed,
): Annotation[] {
  const byKey = new Map(current.map((annotation) => [annotation.key, annotation]));
  for (const change of changes) byKey.set(change.key, stamp(change, byKey.get(change.key)));
  return inSchemaOrder(schema, [...byKey.values()]);
}

export interface CellReplacement {
  /** A column key; column keys are unique in a schema, so it names its table too. */
  key: string;
  rowIndex: number;
  value: string;
}

/** Replaces single cells of table fields (validation answers' `results`); an unknown column or row is a 400. */
export function replaceCells(
  schema: readonly FieldDefinition[],
  annotations: readonly Annotation[],
  cells: readonly CellReplacement[],
  source: string,
  path = "cells",
): Annotation[] {
  const errors: FieldError[] = [];
  const result = annotations.map((annotation) =>
    annotation.rows ? { ...annotation, rows: annotation.rows.map((row) => ({ ...row })) } : annotation,
  );
  cells.forEach((cell, index) => {
    const at = `${path}.${index}`;
    const location = locateKey(schema, cell.key);
    if (location?.kind !== "column") {
      errors.push({ path: `${at}.key`, message: `"${cell.key}" is not a column of a table field` });
      return;
    }
    const table = result.find((annotation) => annotation.key === location.table.key);
    const row = table?.rows?.[cell.rowIndex];
    if (!table || !row) {
      errors.push({ path: `${at}.row_index`, message: `${location.table.key} has no row ${cell.rowIndex}` });
      return;
    }
    row[cell.key] = typedValueOf(location.column.type, { value: cell.value }, at, errors);
    table.source = source;
  });
  if (errors.length) throw new ValidationError("The cell replacements do not match the document.", errors, "invalid_cells");
  return result;
}
