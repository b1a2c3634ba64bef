import { randomInt } from "node:crypto";
import { isUuid } from "@docex/kit/ids";
import { z } from "zod";

/**
 * Organizations (membership), workspaces and queues (document) have a humanized id besides their UUID:
 * a lowercase slug, unique among its kind, accepted wherever the API takes "UUID or humanized id". This is
 * its one rule, for the ids clients choose and for those made from a name.
 */
export const HUMANIZED_ID_MAX_LENGTH = 63;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * A humanized id given by a client. A slug shaped like a UUID is refused: path parameters accept both, and
 * a UUID must always mean an id. The first check that fails is the only one reported.
 */
export const humanizedIdInput = z
  .string()
  .max(HUMANIZED_ID_MAX_LENGTH, { message: `At most ${HUMANIZED_ID_MAX_LENGTH} characters.`, abort: true })
  .regex(SLUG, { message: "Lowercase letters, digits and single hyphens between them, e.g. acme-invoices.", abort: true })
  .refine((value) => !isUuid(value), "Must not have the form of a UUID.");

/** Why a humanized id given by a client is unacceptable (as `humanizedIdInput` says it), or undefined when it is fine. */
export function humanizedIdProblem(value: string): string | undefined {
  return humanizedIdInput.safeParse(value).error?.issues[0]?.message;
}

/** "Účetní kancelář Nováková" → "ucetni-kancelar-novakova"; a name with no letters or digits → `fallback`. */
export function slugFromName(name: string, fallback: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, HUMANIZED_ID_MAX_LENGTH)
    .replace(/-+$/g, "");
  if (!slug || isUuid(slug)) return fallback;
  return slug;
}

/** `base` with a numeric suffix that fits the length limit: acme, acme-2, acme-3, ... */
export function withSuffix(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, HUMANIZED_ID_MAX_LENGTH - suffix.length).replace(/-+$/g, "")}${suffix}`;
}

/** How often the search for a free suffix starts again after another writer took the one found. */
const SUFFIX_ATTEMPTS = 5;

export interface HumanizedIdSearch<T> {
  /** The humanized ids of this kind that are `base` or `base-<n>`. */
  taken: (base: string) => Promise<string[]>;
  /** Inserts the entity with this humanized id; undefined when it is taken (a unique constraint). */
  insert: (humanizedId: string) => Promise<T | undefined>;
}

/**
 * Inserts with the first free humanized id made from `base`: `base`, else the smallest free suffix
 * (acme, acme-2, acme-3). Another writer may take that one between the look and the insert; the search
 * then starts again, and after a few rounds a large random suffix ends it. Undefined if even that was taken.
 */
export async function insertWithFreeHumanizedId<T>(base: string, search: HumanizedIdSearch<T>): Promise<T | undefined> {
  for (let attempt = 0; attempt < SUFFIX_ATTEMPTS; attempt += 1) {
    const taken = new Set(await search.taken(base));
    let n = 1;
    while (taken.has(withSuffix(base, n))) n += 1;
    const inserted = await search.insert(withSuffix(base, n));
    if (inserted) return inserted;
  }
  return search.insert(withSuffix(base, 1_000 + randomInt(9_000_000)));
}
