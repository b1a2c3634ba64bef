import { type Migration, sqlMigration } from "@docex/kit/db";

/** The trigram index of items; the search-index upkeep names it. */
export const ITEM_SEARCH_INDEX = "register_items_search";

/** Schema of the register database, in order. The kit's outbox tables are added in front. */
export const migrations: Migration[] = [
  sqlMigration(
    "0001-registers-and-items",
    `
        CREATE EXTENSION IF NOT EXISTS pg_trgm;

        -- A register is identified by (queue, name). The queue and its organization belong to the document
        -- service; they are copied here when the register is created, so reads need no call to resolve them.
        CREATE TABLE registers (
          id               uuid PRIMARY KEY,
          organization_id  uuid NOT NULL,
          queue_id         uuid NOT NULL,
          name             text NOT NULL,
          item_count       integer NOT NULL DEFAULT 0,
          created_at       timestamptz NOT NULL DEFAULT now(),
          updated_at       timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT registers_name_per_queue UNIQUE (queue_id, name)
        );

        -- Items are written only in bulk, by a transaction that holds the lock of their register's row, and
        -- registers are never deleted; a foreign key would add one trigger call per item to every upload.
        -- position: 1..item_count without gaps, in upload order (replace renumbers, append and upsert add at
        -- the end, an upsert of a known value keeps its place), so page n is a range of the position index.
        -- register_number: the item's "register_id" field of the API (a company register number).
        CREATE TABLE register_items (
          register_id      uuid NOT NULL,
          position         integer NOT NULL,
          value            text NOT NULL,
          label            text,
          name             text,
          register_number  text,
          tax_id           text,
          data             jsonb NOT NULL DEFAULT '{}',
          -- What q searches (lowercased). The separator keeps a match from spanning two fields: q may not
          -- contain it, and pg_trgm makes no trigram across it. A name found inside the label, or a register
          -- number inside the tax id (CZ12345678 holds 12345678), is left out: whatever q matches in it, it
          -- matches in the other field as well, and trigram extraction is most of the cost of an upload.
          search_text      text NOT NULL GENERATED ALWAYS AS (lower(
                             value || chr(31) || coalesce(label, '') || chr(31)
                             || CASE WHEN strpos(lower(coalesce(label, '')), lower(coalesce(name, ''))) > 0 THEN ''
                                     ELSE coalesce(name, '') END || chr(31)
                             || CASE WHEN strpos(lower(coalesce(tax_id, '')), lower(coalesce(register_number, ''))) > 0 THEN ''
                                     ELSE coalesce(register_number, '') END || chr(31)
                             || coalesce(tax_id, ''))) STORED,
          PRIMARY KEY (register_id, value),
          CONSTRAINT register_items_position UNIQUE (register_id, position)
        );

        -- A large pending list makes a bulk upload append its trigrams instead of merging them into the
        -- tree item by item; SearchIndexUpkeep merges the list right after such an upload commits.
        CREATE INDEX ${ITEM_SEARCH_INDEX} ON register_items USING gin (search_text gin_trgm_ops)
          WITH (fastupdate = on, gin_pending_list_limit = 262144);
      `,
  ),
];
