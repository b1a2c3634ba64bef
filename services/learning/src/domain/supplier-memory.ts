import type { Tx } from "@docex/kit/db";
import type { MemoryStore } from "../store/memory-store.js";
import { CONFIRMATION_WINDOW, rememberedFields } from "./field-memory.js";
import type { SupplierIdentity, SupplierMemory } from "./records.js";

const NOTHING: SupplierMemory = { fields: [], lineItemsVisibility: null, taxDetailVisibility: null };

/** What a queue remembers of a supplier: the fields it fills (pinned over learned) and the visibility preferences. */
export class SupplierMemories {
  constructor(private readonly store: MemoryStore) {}

  async recall(queueId: string, identity: SupplierIdentity | undefined, tx?: Tx): Promise<SupplierMemory> {
    if (!identity) return NOTHING;
    const stored = await this.store.memoryOf({ queueId, supplierKey: identity.key }, CONFIRMATION_WINDOW, tx);
    return {
      fields: rememberedFields(stored.pins, stored.confirmations),
      lineItemsVisibility: stored.lineItemsVisibility,
      taxDetailVisibility: stored.taxDetailVisibility,
    };
  }
}
