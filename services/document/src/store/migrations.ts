import type { Migration } from "@docex/kit";

/** Schema of the document database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [];
