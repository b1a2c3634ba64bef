import type { Migration } from "@docex/kit";

/** Schema of the register database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [];
