import type { Sql, Tx } from "@docex/kit/db";
import type { ItemInput, Register } from "../domain/records.js";

/** An item row of a page: the page's total rides along so that both come from one snapshot. */
interface PageRow extends Partial<ItemInput> {
  total: number;
}

export interface RegisterKey {
  organizationId: string;
  queueId: string;
  name: string;
}

export interface ItemsAndTotal {
  items: ItemInput[];
  total: number;
}

const REGISTER_COLUMNS = `id, organization_id AS "organizationId", queue_id AS "queueId", name, item_count AS "itemCount",
  created_at AS "createdAt", updated_at AS "updatedAt"`;
/** Item columns and the ItemInput field each is read into. */
const ITEM_FIELDS = {
  value: "value",
  label: "label",
  name: "name",
  register_number: "registerNumber",
  tax_id: "taxId",
  data: "data",
} as const satisfies Record<string, keyof ItemInput>;
const ITEM_COLUMNS = Object.keys(ITEM_FIELDS).join(", ");
/** The item columns of `alias`, read as ItemInput. */
const itemFieldsOf = (alias: string) =>
  Object.entries(ITEM_FIELDS)
    .map(([column, field]) => `${alias}.${column} AS "${field}"`)
    .join(", ");

/**
 * Items as one JSON array per column: the whole upload travels in one statement, whatever its size.
 * JSON.stringify is native, where the driver's text-array encoding escapes element by element in
 * JavaScript: for 100,000 items about 0.4 s instead of 1 s, client and server together.
 */
function columnsOf(items: ItemInput[]): string[] {
  const column = (pick: (item: ItemInput) => unknown) => JSON.stringify(items.map(pick));
  return [
    column((item) => item.value),
    column((item) => item.label),
    column((item) => item.name),
    column((item) => item.registerNumber),
    column((item) => item.taxId),
    column((item) => item.data),
  ];
}

/** The uploaded items as rows, numbered from 1 in upload order; binds $2..$7 (the columns of `columnsOf`). */
const INPUT_ROWS = `
  SELECT * FROM ROWS FROM (
    json_array_elements_text($2::json), json_array_elements_text($3::json), json_array_elements_text($4::json),
    json_array_elements_text($5::json), json_array_elements_text($6::json), jsonb_array_elements($7::jsonb)
  ) WITH ORDINALITY AS input (value, label, name, register_number, tax_id, data, ord)`;

/**
 * What the trigram index is asked for q: its longest words (runs of letters and digits, as pg_trgm splits
 * text) of three characters or more, each as a substring. Any substring of q is implied by q, so this finds
 * every match; it leaves out the trigrams q's word boundaries would add ("  a" for a word starting with a),
 * which are in a large share of all items and made a two-word search 2.5 times slower. Empty when q has no
 * such word.
 */
function indexedWordsOf(text: string): string[] {
  const words = [...new Set(text.split(/[^\p{L}\p{N}]+/u))].filter((word) => word.length >= 3);
  return words.sort((a, b) => b.length - a.length).slice(0, 3);
}

/**
 * Matches of a q without a three-character word beyond which it is counted by a sequential scan. At
 * 1,000,000 items the scan costs about as much as rechecking 30,000 trigram candidates one by one.
 */
const BROAD_MATCHES = 10_000;

/** Escapes LIKE's wildcards and its escape character, so that q matches literally. */
function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * Registers and their items. Writes take a transaction and expect the caller to hold the register's lock
 * (`lockRegisters`); every item write is one statement, whatever the number of items.
 */
export class RegisterStore {
  constructor(private readonly sql: Sql) {}

  /** Removes the registers of a deleted queue with their items (queue.deleted); removing nothing is fine. */
  async removeQueue(queueId: string): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await this.sql.run(`DELETE FROM register_items WHERE register_id IN (SELECT id FROM registers WHERE queue_id = $1)`, [queueId], tx);
      await this.sql.run(`DELETE FROM registers WHERE queue_id = $1`, [queueId], tx);
    });
  }

  /**
   * Runs an upload's transaction. Bulk statements sort and hash a hundred thousand rows and flush the
   * search index's pending list; the default work_mem (4 MB) would make them spill to disk.
   */
  uploadTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.transaction(async (tx) => {
      await this.sql.run("SET LOCAL work_mem = '64MB'", [], tx);
      return work(tx);
    });
  }

  /**
   * Creates the registers that do not exist yet and locks all of them until the transaction ends, in one
   * order (queue, then name) so that two uploads naming the same registers cannot deadlock.
   */
  async lockRegisters(tx: Tx, keys: RegisterKey[]): Promise<Register[]> {
    const ordered = [...keys].sort((a, b) => (a.queueId === b.queueId ? compare(a.name, b.name) : compare(a.queueId, b.queueId)));
    const locked: Register[] = [];
    for (const key of ordered) {
      // The no-op update on conflict takes the row lock and returns the existing row.
      const row = await this.sql.one<Register>(
        `INSERT INTO registers (id, organization_id, queue_id, name) VALUES (gen_random_uuid(), $1, $2, $3)
         ON CONFLICT ON CONSTRAINT registers_name_per_queue DO UPDATE SET name = excluded.name
         RETURNING ${REGISTER_COLUMNS}`,
        [key.organizationId, key.queueId, key.name],
        tx,
      );
      if (!row) throw new Error(`register ${key.queueId}/${key.name} was neither created nor found`);
      locked.push(row);
    }
    return locked;
  }

  /** Deletes every item of the register and writes `items` as its whole content, numbered from 1. */
  async replaceItems(tx: Tx, registerId: string, items: ItemInput[]): Promise<void> {
    await this.sql.run("DELETE FROM register_items WHERE register_id = $1", [registerId], tx);
    if (items.length === 0) return;
    await this.sql.run(
      `INSERT INTO register_items (register_id, position, ${ITEM_COLUMNS})
       SELECT $1, ord, value, label, name, register_number, tax_id, data FROM (${INPUT_ROWS}) AS input`,
      [registerId, ...columnsOf(items)],
      tx,
    );
  }

  /** Values among `values` that the register already has, in the order given, at most `limit`. */
  async knownValues(tx: Tx, registerId: string, values: string[], limit: number): Promise<string[]> {
    const rows = await this.sql.rows<{ value: string }>(
      `SELECT input.value FROM json_array_elements_text($2::json) WITH ORDINALITY AS input (value, ord)
       JOIN register_items AS item ON item.register_id = $1 AND item.value = input.value
       ORDER BY input.ord LIMIT $3`,
      [registerId, JSON.stringify(values), limit],
      tx,
    );
    return rows.map((row) => row.value);
  }

  /** Adds items the register does not have yet, after its last position. */
  async appendItems(tx: Tx, registerId: string, lastPosition: number, items: ItemInput[]): Promise<void> {
    if (items.length === 0) return;
    await this.sql.run(
      `INSERT INTO register_items (register_id, position, ${ITEM_COLUMNS})
       SELECT $1, $8::integer + ord, value, label, name, register_number, tax_id, data FROM (${INPUT_ROWS}) AS input`,
      [registerId, ...columnsOf(items), lastPosition],
      tx,
    );
  }

  /**
   * Overwrites the fields of the items whose value exists (they keep their place) and inserts the others after
   * the last position, in upload order. Rows that would not change are not touched. Not INSERT … ON CONFLICT:
   * that locks every conflicting row, changed or not (a write per row, measured 1.8 s against 1.1 s for
   * 100,000 unchanged items), and the register's lock already keeps other writers out.
   */
  async upsertItems(tx: Tx, registerId: string, lastPosition: number, items: ItemInput[]): Promise<{ inserted: number; updated: number }> {
    if (items.length === 0) return { inserted: 0, updated: 0 };
    const row = await this.sql.one<{ inserted: number; updated: number }>(
      `WITH input AS MATERIALIZED (${INPUT_ROWS}),
       changed AS (
         UPDATE register_items AS item
         SET label = input.label, name = input.name, register_number = input.register_number, tax_id = input.tax_id, data = input.data
         FROM input
         WHERE item.register_id = $1 AND item.value = input.value
           AND (item.label, item.name, item.register_number, item.tax_id, item.data)
             IS DISTINCT FROM (input.label, input.name, input.register_number, input.tax_id, input.data)
         RETURNING 1
       ),
       fresh AS (
         INSERT INTO register_items (register_id, position, ${ITEM_COLUMNS})
         SELECT $1, $8::integer + row_number() OVER (ORDER BY ord), value, label, name, register_number, tax_id, data
         FROM input
         WHERE NOT EXISTS (SELECT 1 FROM register_items AS item WHERE item.register_id = $1 AND item.value = input.value)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM fresh)::integer AS inserted, (SELECT count(*) FROM changed)::integer AS updated`,
      [registerId, ...columnsOf(items), lastPosition],
      tx,
    );
    return { inserted: row?.inserted ?? 0, updated: row?.updated ?? 0 };
  }

  async setItemCount(tx: Tx, registerId: string, itemCount: number): Promise<Register> {
    const row = await this.sql.one<Register>(
      `UPDATE registers SET item_count = $2, updated_at = now() WHERE id = $1 RETURNING ${REGISTER_COLUMNS}`,
      [registerId, itemCount],
      tx,
    );
    if (!row) throw new Error(`register ${registerId} vanished while locked`);
    return row;
  }

  async findRegister(registerId: string): Promise<Register | undefined> {
    return this.sql.one<Register>(`SELECT ${REGISTER_COLUMNS} FROM registers WHERE id = $1`, [registerId]);
  }

  async registersOfQueue(queueId: string): Promise<Register[]> {
    return this.sql.rows<Register>(`SELECT ${REGISTER_COLUMNS} FROM registers WHERE queue_id = $1 ORDER BY name`, [queueId]);
  }

  /** Items at positions (offset, offset + limit], with the register's item count, read in one statement. */
  async itemsAt(registerId: string, offset: number, limit: number): Promise<ItemsAndTotal> {
    const rows = await this.sql.rows<PageRow>(
      `SELECT register.item_count AS total, ${itemFieldsOf("item")}
       FROM registers AS register
       LEFT JOIN register_items AS item
         ON item.register_id = register.id AND item.position > $2 AND item.position <= $2::integer + $3::integer
       WHERE register.id = $1
       ORDER BY item.position`,
      [registerId, offset, limit],
    );
    return pageOf(rows);
  }

  /**
   * Items of which a searched field contains `text`, case-insensitively, with their count, in one statement.
   * The matches are collected as positions only; the page's rows are read by position afterwards.
   */
  async searchItems(registerId: string, text: string, offset: number, limit: number): Promise<ItemsAndTotal> {
    const words = indexedWordsOf(text);
    return words.length
      ? this.searchByWords(registerId, text, words, offset, limit)
      : this.searchWithoutWords(registerId, text, offset, limit);
  }

  /** The index is asked for the longest words of q, the exact substring is checked on what it finds. */
  private async searchByWords(registerId: string, text: string, words: string[], offset: number, limit: number): Promise<ItemsAndTotal> {
    const patterns = words.map(likeSubstring);
    const indexed = patterns.map((_, index) => `search_text LIKE lower($${5 + index})`).join(" AND ");
    const rows = await this.sql.rows<PageRow>(
      `WITH matches AS MATERIALIZED (
         SELECT position FROM register_items
         WHERE register_id = $1 AND ${indexed} AND strpos(search_text, lower($2)) > 0
       )
       SELECT counted.total, ${itemFieldsOf("item")}
       FROM (SELECT count(*)::integer AS total FROM matches) AS counted
       LEFT JOIN LATERAL (SELECT position FROM matches ORDER BY position LIMIT $4 OFFSET $3) AS page ON true
       LEFT JOIN register_items AS item ON item.register_id = $1 AND item.position = page.position
       ORDER BY page.position`,
      [registerId, text, offset, limit, ...patterns],
    );
    return pageOf(rows);
  }

  /**
   * q without a word of three characters (`s.r.o.`, `cz`) has only word-boundary trigrams or none; most such
   * q match a large share of the register, a few (`x&y`) almost nothing. The LIKE pattern is q itself, so
   * its recheck is the exact test. The statement first collects up to BROAD_MATCHES matches the cheapest way
   * the planner finds; fewer means these are all, and the page is taken from them. Otherwise it counts with
   * `strpos`, which no index serves: a sequential scan that Postgres may split among workers, cheaper than
   * rechecking trigram candidates that are every item anyway; and the page is read from the position index
   * until it has its rows.
   */
  private async searchWithoutWords(registerId: string, text: string, offset: number, limit: number): Promise<ItemsAndTotal> {
    const rows = await this.sql.rows<PageRow>(
      `WITH first AS MATERIALIZED (
         SELECT position FROM register_items WHERE register_id = $1 AND search_text LIKE lower($2) LIMIT $6
       ),
       probe AS (SELECT count(*)::integer AS found FROM first)
       SELECT counted.total, ${itemFieldsOf("item")}
       FROM (
         SELECT CASE WHEN probe.found < $6 THEN probe.found ELSE (
             SELECT count(*)::integer FROM register_items WHERE register_id = $1 AND strpos(search_text, lower($5)) > 0
           ) END AS total
         FROM probe
       ) AS counted
       LEFT JOIN LATERAL (
         (SELECT position FROM first WHERE (SELECT found FROM probe) < $6 ORDER BY position LIMIT $4 OFFSET $3)
         UNION ALL
         (SELECT position FROM register_items
          WHERE (SELECT found FROM probe) >= $6 AND register_id = $1 AND search_text LIKE lower($2)
          ORDER BY position LIMIT $4 OFFSET $3)
       ) AS page ON true
       LEFT JOIN register_items AS item ON item.register_id = $1 AND item.position = page.position
       ORDER BY page.position`,
      [registerId, likeSubstring(text), offset, limit, text, BROAD_MATCHES],
    );
    return pageOf(rows);
  }

  /** The items whose value is one of `values`, in no particular order. */
  async itemsWithValues(registerId: string, values: string[]): Promise<ItemInput[]> {
    return this.sql.rows<ItemInput>(
      `SELECT ${itemFieldsOf("register_items")} FROM register_items WHERE register_id = $1 AND value = ANY($2::text[])`,
      [registerId, values],
    );
  }
}

function pageOf(rows: PageRow[]): ItemsAndTotal {
  const items = rows
    .filter((row): row is PageRow & ItemInput => typeof row.value === "string")
    .map(({ value, label, name, registerNumber, taxId, data }) => ({ value, label, name, registerNumber, taxId, data }));
  return { items, total: rows[0]?.total ?? 0 };
}

/** A fixed order of strings, the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
