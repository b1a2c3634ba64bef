export * from "./annotation.js";
export * from "./field-values.js";
export * from "./schema.js";
export * from "./supplier.js";
