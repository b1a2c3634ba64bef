import type { Annotation } from "./annotation.js";

/**
 * Who a document's supplier is, as the supplier memory knows it: learning remembers values per supplier, extraction
 * where the supplier prints each field; both find the supplier by these keys.
 */

/** A supplier as the caller or a document names it; any of the three may be missing. */
export interface SupplierIds {
  taxId: string | null;
  registerId: string | null;
  name: string | null;
}

/** Which identifier a supplier is known by in the memory, and its normalised form. */
export interface SupplierIdentity {
  kind: "tax_id" | "register_id" | "name";
  /** `<kind>:<normalised identifier>`: the key of the memory. */
  key: string;
}

/** The fields of the default annotation schema (API.md) that name a document's supplier. */
export const SUPPLIER_FIELDS = {
  taxId: "supplier_tax_id",
  registerId: "supplier_register_id",
  name: "supplier_name",
} as const satisfies Record<keyof SupplierIds, string>;

/** Tax and register ids are written with or without spaces, dots and dashes: "CZ 123 45 678" is "CZ12345678". */
export function normaliseCode(text: string): string {
  return text
    .normalize("NFKC")
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/**
 * Names differ in case, accents, spacing and punctuation between invoices: "Žluťoučký kůň, s. r. o." and
 * "ZLUTOUCKY KUN s.r.o." are the same supplier. Legal forms are kept, since "Acme a.s." and "Acme s.r.o."
 * are different companies.
 */
export function normaliseName(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** tax_id, else register_id, else the normalised name; undefined when none of them says anything. */
export function supplierIdentity(ids: SupplierIds): SupplierIdentity | undefined {
  const taxId = ids.taxId ? normaliseCode(ids.taxId) : "";
  if (taxId) return { kind: "tax_id", key: `tax_id:${taxId}` };
  const registerId = ids.registerId ? normaliseCode(ids.registerId) : "";
  if (registerId) return { kind: "register_id", key: `register_id:${registerId}` };
  const name = ids.name ? normaliseName(ids.name) : "";
  if (name) return { kind: "name", key: `name:${name}` };
  return undefined;
}

function textOf(annotations: readonly Annotation[], key: string): string | null {
  const text = annotations.find((annotation) => annotation.key === key)?.value.trim();
  return text ? text : null;
}

/** The supplier a document names in its supplier_tax_id, supplier_register_id and supplier_name annotations. */
export function supplierIdsOf(annotations: readonly Annotation[]): SupplierIds {
  return {
    taxId: textOf(annotations, SUPPLIER_FIELDS.taxId),
    registerId: textOf(annotations, SUPPLIER_FIELDS.registerId),
    name: textOf(annotations, SUPPLIER_FIELDS.name),
  };
}
