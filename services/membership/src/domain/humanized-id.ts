export const HUMANIZED_ID_MAX_LENGTH = 63;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function looksLikeUuid(value: string): boolean {
  return UUID_SHAPE.test(value);
}

/**
 * Why a humanized id given by a client is unacceptable, or undefined when it is fine. A slug shaped like
 * a UUID is refused: path parameters accept both, and a UUID must always mean an id.
 */
export function humanizedIdProblem(value: string): string | undefined {
  if (value.length > HUMANIZED_ID_MAX_LENGTH) return `At most ${HUMANIZED_ID_MAX_LENGTH} characters.`;
  if (!SLUG.test(value)) return "Lowercase letters, digits and single hyphens between them, e.g. acme-invoices.";
  if (looksLikeUuid(value)) return "Must not have the form of a UUID.";
  return undefined;
}

/** "Účetní kancelář Nováková" → "ucetni-kancelar-novakova"; a name with no letters or digits → "organization". */
export function slugFromName(name: string, maxLength = HUMANIZED_ID_MAX_LENGTH): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, maxLength)
    .replace(/-+$/g, "");
  if (!slug || looksLikeUuid(slug)) return "organization";
  return slug;
}

/** `base` with a numeric suffix that fits the length limit: acme, acme-2, acme-3, ... */
export function withSuffix(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, HUMANIZED_ID_MAX_LENGTH - suffix.length).replace(/-+$/g, "")}${suffix}`;
}
