import { type FieldDefinition, locateKey, valueTypeOf } from "@docex/annotations";
import type { Annotation, Condition, Conditions } from "./records.js";

/** A condition's verdict: decided, or "unknown" when a register could not be asked. */
export type Verdict = boolean | "unknown";

/** Which of `values` are items of the register; "unknown" when the register service cannot say. */
export type RegisterCheck = (registerId: string, values: string[]) => Promise<Set<string> | "unknown">;

interface FieldValue {
  text: string;
  numeric?: number;
  isoDate?: string;
}

/** The non-empty values a key holds: a field's value and extra values, or the cells of a column in every row. */
function valuesOf(schema: readonly FieldDefinition[], annotations: readonly Annotation[], key: string): FieldValue[] {
  const location = locateKey(schema, key);
  if (!location) return [];
  const holderKey = location.kind === "column" ? location.table.key : location.field.key;
  const annotation = annotations.find((candidate) => candidate.key === holderKey);
  if (!annotation) return [];
  const raw: Array<{ value: string; numericValue?: number; isoDateValue?: string }> =
    location.kind === "column"
      ? (annotation.rows ?? []).flatMap((row) => (row[key] ? [row[key]] : []))
      : location.field.type === "table"
        ? (annotation.rows ?? []).filter((row) => Object.values(row).some((cell) => cell.value.trim() !== "")).map(() => ({ value: "row" }))
        : [annotation, ...(annotation.values ?? [])];
  return raw
    .filter((value) => value.value.trim() !== "")
    .map((value) => ({
      text: value.value,
      ...(value.numericValue !== undefined ? { numeric: value.numericValue } : {}),
      ...(value.isoDateValue !== undefined ? { isoDate: value.isoDateValue } : {}),
    }));
}

const fold = (text: string) => text.trim().toLocaleLowerCase();

function equals(type: FieldDefinition["type"], value: FieldValue, expected: string | number): boolean {
  if (type === "number") return value.numeric !== undefined && value.numeric === Number(expected);
  if (type === "date") return value.isoDate !== undefined && value.isoDate === String(expected);
  return fold(value.text) === fold(String(expected));
}

function compare(type: FieldDefinition["type"], value: FieldValue, expected: string | number): number | undefined {
  if (type === "number") return value.numeric === undefined ? undefined : value.numeric - Number(expected);
  if (type === "date") return value.isoDate === undefined ? undefined : value.isoDate.localeCompare(String(expected));
  return undefined;
}

async function holds(
  condition: Condition,
  schema: readonly FieldDefinition[],
  annotations: readonly Annotation[],
  inRegister: RegisterCheck,
): Promise<Verdict> {
  const location = locateKey(schema, condition.field);
  // A rule is checked against the schema when saved, and schemas do not change; this guards stored data only.
  if (!location) return false;
  const type = valueTypeOf(location);
  const values = valuesOf(schema, annotations, condition.field);
  const expected = condition.value ?? "";
  const some = (test: (value: FieldValue) => boolean) => values.some(test);
  const ordered = (test: (difference: number) => boolean) =>
    some((value) => {
      const difference = compare(type, value, expected);
      return difference !== undefined && test(difference);
    });
  switch (condition.operator) {
    case "exists":
      return values.length > 0;
    case "not_exists":
      return values.length === 0;
    case "eq":
      return some((value) => equals(type, value, expected));
    case "neq":
      return !some((value) => equals(type, value, expected));
    case "contains":
      return some((value) => fold(value.text).includes(fold(String(expected))));
    case "gt":
      return ordered((difference) => difference > 0);
    case "gte":
      return ordered((difference) => difference >= 0);
    case "lt":
      return ordered((difference) => difference < 0);
    case "lte":
      return ordered((difference) => difference <= 0);
    case "in_register": {
      if (values.length === 0) return false;
      const found = await inRegister(String(expected), [...new Set(values.map((value) => value.text.trim()))]);
      return found === "unknown" ? "unknown" : found.size > 0;
    }
  }
}

/**
 * Whether a document's annotations satisfy the conditions. `all`: every condition holds; `any`: at least
 * one does; no conditions: every document. Values are compared as their field's type: numbers by
 * `numericValue`, dates by `isoDateValue`, text trimmed and case-insensitive. A field with several values
 * (multi-value, or a table column across rows) satisfies a condition when one of its values does; `neq`
 * holds when none equals. A condition that cannot be decided (register unavailable) makes the verdict
 * "unknown" unless the others decide it anyway.
 */
export async function conditionsHold(
  conditions: Conditions,
  schema: readonly FieldDefinition[],
  annotations: readonly Annotation[],
  inRegister: RegisterCheck,
): Promise<Verdict> {
  let unknown = false;
  for (const condition of conditions.rules) {
    const verdict = await holds(condition, schema, annotations, inRegister);
    if (verdict === "unknown") unknown = true;
    else if (conditions.match === "all" && !verdict) return false;
    else if (conditions.match === "any" && verdict) return true;
  }
  if (unknown) return "unknown";
  return conditions.match === "all" || conditions.rules.length === 0;
}
