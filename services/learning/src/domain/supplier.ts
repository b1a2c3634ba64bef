export { normaliseCode, normaliseName, SUPPLIER_FIELDS, supplierIdentity, supplierIdsOf } from "@docex/annotations";
