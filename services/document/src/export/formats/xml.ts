import { XMLBuilder } from "fast-xml-parser";

// Attributes are keys starting with `@`, text beside attributes is `#text`; the builder escapes every value
// (processEntities), so no text from a document can break the markup.
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  format: true,
  suppressEmptyNode: true,
  processEntities: true,
});

/** An XML document (UTF-8, with its declaration) from the builder's object form. */
export function xmlDocument(root: Record<string, unknown>): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(root)}`, "utf8");
}

/** Leaves out what is undefined, so an element the document has no value for is not written at all. */
export function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}
