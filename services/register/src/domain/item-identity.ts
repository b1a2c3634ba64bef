import { createHash } from "node:crypto";

/**
 * The id of an item: a name-based UUID (RFC 9562 version 3) of its value in the namespace of its register.
 * A value identifies an item within a register, so its id stays the same across replace and upsert uploads,
 * and no id needs to be stored or indexed for a hundred thousand rows per upload.
 */
export function itemIdOf(registerId: string, value: string): string {
  const namespace = Buffer.from(registerId.replaceAll("-", ""), "hex");
  const hash = createHash("md5").update(namespace).update(value, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x30;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
