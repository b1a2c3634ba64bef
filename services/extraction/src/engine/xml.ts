import { XMLParser } from "fast-xml-parser";
import { UnreadableFileError } from "./types.js";

/** An XML element as fast-xml-parser gives it: text, or an object of children and `@attributes`. */
export type XmlNode = string | number | boolean | { [name: string]: XmlNode | XmlNode[] } | undefined;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  // XML's five predefined entities and character references are decoded ("GmbH &amp; Co." is "GmbH & Co.");
  // no declared entity can exist, since a DOCTYPE is refused before the text reaches the parser.
  processEntities: true,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  allowBooleanAttributes: true,
});

/** No e-invoice element has more than a handful of attributes; thousands are an attack on the parser's time. */
const MAX_ATTRIBUTES_PER_ELEMENT = 64;
/** Longest start tag (name and attributes) read; a real one is well under 1 KiB. */
const MAX_START_TAG_LENGTH = 16 * 1024;

/**
 * Refuses attribute-heavy XML before it is parsed: one linear pass over the start tags, counting attributes
 * (`=` outside quoted values) and their length. A 7 MB file of attributes otherwise took the parser 14 s and 386 MB.
 */
function checkStartTags(text: string): void {
  let at = text.indexOf("<");
  while (at >= 0 && at < text.length) {
    const next = text.charCodeAt(at + 1);
    const startTag = (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 95;
    if (!startTag) {
      at = text.indexOf("<", at + 1);
      continue;
    }
    let attributes = 0;
    let quote = 0;
    let index = at + 1;
    for (; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (quote) {
        if (code === quote) quote = 0;
      } else if (code === 34 || code === 39) quote = code;
      else if (code === 61) attributes += 1;
      else if (code === 62) break;
      if (index - at > MAX_START_TAG_LENGTH)
        throw new UnreadableFileError(`The XML file has an element whose start tag is longer than ${MAX_START_TAG_LENGTH} characters.`);
    }
    if (attributes > MAX_ATTRIBUTES_PER_ELEMENT)
      throw new UnreadableFileError(`The XML file has an element with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes.`);
    at = text.indexOf("<", index);
  }
}

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
  checkStartTags(text);
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
