import { isUuid } from "@docex/kit/ids";

/** What a humanized id is lives in the kit (humanized-id.ts); here only how a path or body names an entity. */
export { isUuid };

/** How a path or body names an entity: its UUID, or its humanized id. */
export type EntityRef = { id: string } | { humanizedId: string };

export function entityRefOf(idOrHumanized: string): EntityRef {
  const text = idOrHumanized.trim().toLowerCase();
  return isUuid(text) ? { id: text } : { humanizedId: text };
}
