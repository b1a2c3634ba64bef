import { randomBytes } from "node:crypto";
import { z } from "zod";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_LENGTH = 63;

export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

/** A lowercase slug that can never be mistaken for a UUID, so "UUID or humanized id" is never ambiguous. */
export const humanizedIdInput = z
  .string()
  .min(2)
  .max(MAX_LENGTH)
  .regex(SLUG_PATTERN, "must be a lowercase slug: letters a-z, digits and single dashes between them")
  .refine((value) => !isUuid(value), "must not have the form of a UUID");

/** How a path or body names an entity: its UUID, or its humanized id. */
export type EntityRef = { id: string } | { humanizedId: string };

export function entityRefOf(idOrHumanized: string): EntityRef {
  const text = idOrHumanized.trim().toLowerCase();
  return isUuid(text) ? { id: text } : { humanizedId: text };
}

/** "Acme Invoices – Q1" → "acme-invoices-q1"; a name with nothing usable falls back to `fallback`. */
export function slugOf(name: string, fallback: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_LENGTH - 5)
    .replace(/-+$/, "");
  return slug.length >= 2 && !isUuid(slug) ? slug : fallback;
}

/** The slug with a short random suffix, for when the plain one is taken. */
export function suffixed(slug: string): string {
  return `${slug}-${randomBytes(2).toString("hex")}`;
}
