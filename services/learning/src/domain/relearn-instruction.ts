import { locateKey, type SchemaField, typeProblem } from "@docex/annotations";
import { type FieldError, ValidationError } from "@docex/kit/errors";
import { isTable } from "./annotation-schema.js";
import type { SupplierIdentity, SupplierIds } from "./records.js";
import { supplierIdentity } from "./supplier.js";

/** The spec's relearn input in domain terms. */
export interface RelearnInput {
  supplier: SupplierIds;
  fieldKey: string;
  /** Null forgets the field for the supplier. */
  value: string | null;
}

/**
 * Checks a relearn against the queue's schema: `field_key` must be a field that holds a value (not a table,
 * not a column of one), a value must be readable as the field's type, and the supplier must be identifiable.
 * Returns the supplier's identity in the memory.
 */
export function checkRelearn(schema: readonly SchemaField[], input: RelearnInput): SupplierIdentity {
  const errors: FieldError[] = [];
  const location = locateKey(schema, input.fieldKey);
  if (!location) {
    errors.push({ path: "field_key", message: `unknown field key "${input.fieldKey}": the queue's annotation schema has no such field` });
  } else if (location.kind === "column") {
    errors.push({
      path: "field_key",
      message: `"${input.fieldKey}" is a column of ${location.table.key}; relearn fills fields, not table cells`,
    });
  } else if (isTable(location.field)) {
    errors.push({ path: "field_key", message: `"${input.fieldKey}" is a table; relearn fills fields, not tables` });
  } else if (input.value !== null) {
    if (input.value.trim() === "") errors.push({ path: "value", message: "an empty value pins nothing; send null to forget the field" });
    const problem = typeProblem(location.field.type, input.value);
    if (problem) errors.push({ path: "value", message: problem });
  }
  const identity = supplierIdentity(input.supplier);
  if (!identity) {
    for (const path of ["tax_id", "register_id", "name"])
      errors.push({ path, message: "at least one of tax_id, register_id and name must name the supplier" });
  }
  if (errors.length || !identity) throw new ValidationError("The relearn instruction does not fit the queue.", errors, "invalid_relearn");
  return identity;
}
