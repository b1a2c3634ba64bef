import type { Sql } from "@docex/kit/db";
import type { LayoutPlace } from "../domain/layout-memory.js";

type Box = [number, number, number, number];

/** A place as learned from one validation, with how its value was kept: read from the place and kept, or not. */
export interface LearnedPlace extends Omit<LayoutPlace, "confirmed" | "missed"> {
  /** "kept": the layout's own reading was confirmed; "corrected": a person changed the value; "confirmed": another reading was. */
  outcome: "kept" | "corrected" | "confirmed";
}

/** The supplier layouts learned from validation (table layout_places), and which validations were learned. */
export class LayoutStore {
  constructor(private readonly sql: Sql) {}

  places(queueId: string, supplierKey: string): Promise<LayoutPlace[]> {
    return this.sql.rows<LayoutPlace>(
      `SELECT field_key AS "fieldKey", page, anchor, anchor_box AS "anchorBox", value_box AS "valueBox", confirmed, missed
       FROM layout_places WHERE queue_id = $1 AND supplier_key = $2 ORDER BY field_key`,
      [queueId, supplierKey],
    );
  }

  /**
   * Learns one validated document's places, once per event: a place whose reading was kept counts one more
   * confirmation; a corrected one starts again where the person's value is printed, counting the miss.
   */
  async learn(
    validation: { eventId: string; documentId: string; queueId: string; supplierKey: string },
    places: readonly LearnedPlace[],
  ): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const claimed = await this.sql.rows(
        `INSERT INTO layout_validations (event_id, document_id, queue_id, places) VALUES ($1, $2, $3, $4)
         ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [validation.eventId, validation.documentId, validation.queueId, places.length],
        tx,
      );
      if (claimed.length === 0) return false;
      for (const place of places)
        await this.sql.run(
          `INSERT INTO layout_places (queue_id, supplier_key, field_key, page, anchor, anchor_box, value_box, confirmed, missed, learned_from)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, 1, 0, $8)
           ON CONFLICT (queue_id, supplier_key, field_key) DO UPDATE SET
             page = EXCLUDED.page, anchor = EXCLUDED.anchor, anchor_box = EXCLUDED.anchor_box, value_box = EXCLUDED.value_box,
             confirmed = CASE WHEN $9::text = 'corrected' THEN 1 ELSE layout_places.confirmed + 1 END,
             missed = layout_places.missed + CASE WHEN $9::text = 'corrected' THEN 1 ELSE 0 END,
             learned_from = EXCLUDED.learned_from, updated_at = now()`,
          [
            validation.queueId,
            validation.supplierKey,
            place.fieldKey,
            place.page,
            place.anchor,
            place.anchorBox ? JSON.stringify(place.anchorBox satisfies Box) : null,
            JSON.stringify(place.valueBox),
            validation.documentId,
            place.outcome,
          ],
          tx,
        );
      return true;
    });
  }
}
