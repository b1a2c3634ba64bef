import { XMLParser } from "fast-xml-parser";
import { UnreadableFileError } from "./types.js";

/** An XML element as fast-xml-parser gives it: text, or an object of children and `@attributes`. */
export type XmlNode = string | number | boolean | { [name: string]: XmlNode | XmlNode[] } | undefined;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  // No entity is ever expanded and no DOCTYPE is ever read (the text is refused before it reaches the parser).
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  allowBooleanAttributes: true,
});

/**
 * Parses an e-invoice. A DOCTYPE (the carrier of external entities and entity expansion) is refused outright:
 * no e-invoice standard needs one, so refusing costs nothing and no entity is ever resolved.
 */
export function parseXml(bytes: Uint8Array, maxBytes: number): Record<string, XmlNode> {
  if (bytes.length > maxBytes) throw new UnreadableFileError(`The XML file is larger than ${maxBytes} bytes.`);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw new UnreadableFileError(
      "The XML file declares a DOCTYPE or entities; such files are refused (external entities are never read).",
    );
  try {
    return parser.parse(text) as Record<string, XmlNode>;
  } catch (error) {
    throw new UnreadableFileError(`The XML file cannot be parsed: ${(error as Error).message}`);
  }
}

/** The child at a path of local names; the first element where a name repeats. */
export function child(node: XmlNode, ...path: string[]): XmlNode {
  let current: XmlNode | XmlNode[] = node;
  for (const name of path) {
    if (Array.isArray(current)) current = current[0];
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, XmlNode | XmlNode[]>)[name];
  }
  return Array.isArray(current) ? current[0] : current;
}

/** Every element with a local name under a node, in order. */
export function children(node: XmlNode, name: string): XmlNode[] {
  if (typeof node !== "object" || node === null) return [];
  const value = (node as Record<string, XmlNode | XmlNode[]>)[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The trimmed text of the element at a path, or undefined when it is absent or empty. */
export function text(node: XmlNode, ...path: string[]): string | undefined {
  const target = path.length ? child(node, ...path) : node;
  let value: unknown = target;
  if (typeof target === "object" && target !== null) value = (target as Record<string, unknown>)["#text"];
  if (value === undefined || value === null) return undefined;
  const result = String(value).trim();
  return result === "" ? undefined : result;
}

/** An attribute of the element at a path. */
export function attribute(node: XmlNode, name: string, ...path: string[]): string | undefined {
  const target = path.length ? child(node, ...path) : node;
  if (typeof target !== "object" || target === null) return undefined;
  const value = (target as Record<string, unknown>)[`@${name}`];
  return value === undefined ? undefined : String(value);
}
