import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx } from "@docex/kit/db";
import type { FieldError } from "@docex/kit/errors";
import type { RegisterKey, RegisterStore } from "../store/register-store.js";
import type { SearchIndexUpkeep } from "../store/search-index-upkeep.js";
import type { Actor, RegisterAccess } from "./access.js";
import type { DocumentPort } from "./document-port.js";
import type { QueueRef, Register, UploadEntry } from "./records.js";
import { duplicateValues, notAllowedToUpload, QueueNotFoundError, tooManyItems } from "./register-errors.js";
import { registerUpdated } from "./register-events.js";

/** API.md "Limits" leaves it open; 100,000 items fit in the 50 MiB body limit with room for their data. */
export const MAX_ITEMS_PER_UPLOAD = 100_000;

/** How many duplicated values a 409 names. */
const DUPLICATES_NAMED = 20;

export interface RegisterUploadsDeps {
  store: RegisterStore;
  events: OutboxEvents;
  queues: DocumentPort;
  access: RegisterAccess;
  upkeep: SearchIndexUpkeep;
}

export function itemCountOf(entries: { items: unknown[] }[]): number {
  return entries.reduce((sum, entry) => sum + entry.items.length, 0);
}

/**
 * POST /registers: an array of uploads applied in order, in one transaction. A register is identified by
 * (queue, name) and created on its first upload. `replace` swaps the whole content (readers see the old or
 * the new items, never a mix, because each read is one statement), `append` adds new values only, `upsert`
 * adds or overwrites by value.
 */
export class RegisterUploads {
  constructor(private readonly deps: RegisterUploadsDeps) {}

  /** Applies the uploads; returns the registers they touched, in the order first named. */
  async upload(actor: Actor, entries: UploadEntry[]): Promise<Register[]> {
    const itemsUploaded = itemCountOf(entries);
    if (itemsUploaded > MAX_ITEMS_PER_UPLOAD) throw tooManyItems(itemsUploaded, MAX_ITEMS_PER_UPLOAD);
    const queues = await this.authorizedQueues(actor, entries);
    rejectDuplicatesWithinEntries(entries);

    const { store, events, upkeep } = this.deps;
    const keyOf = (index: number) => registerKeyOf(queues[index]!.queueId, entries[index]!.name);
    const touched = await store.uploadTransaction(async (tx) => {
      const keys = new Map<string, RegisterKey>(entries.map((entry, index) => [keyOf(index), { ...queues[index]!, name: entry.name }]));
      const current = new Map<string, Register>();
      for (const register of await store.lockRegisters(tx, [...keys.values()])) {
        current.set(registerKeyOf(register.queueId, register.name), register);
      }
      const updates = [];
      for (const [index, entry] of entries.entries()) {
        const register = current.get(keyOf(index))!;
        const itemCount = await this.apply(tx, register, entry, index);
        const updated = await store.setItemCount(tx, register.id, itemCount);
        current.set(keyOf(index), updated);
        updates.push(registerUpdated(updated, entry.method, actor));
      }
      await events.add(tx, ...updates);
      return [...keys.keys()].map((key) => current.get(key)!);
    });
    upkeep.afterUpload(itemsUploaded);
    return touched;
  }

  /** Writes one element's items into its (locked) register; returns the register's item count after it. */
  private async apply(tx: Tx, register: Register, entry: UploadEntry, index: number): Promise<number> {
    const { store } = this.deps;
    switch (entry.method) {
      case "replace":
        await store.replaceItems(tx, register.id, entry.items);
        return entry.items.length;
      case "append": {
        const values = entry.items.map((item) => item.value);
        const known = await store.knownValues(tx, register.id, values, DUPLICATES_NAMED);
        if (known.length) throw alreadyInRegister(index, entry, known);
        await store.appendItems(tx, register.id, register.itemCount, entry.items);
        return register.itemCount + entry.items.length;
      }
      case "upsert": {
        const { inserted } = await store.upsertItems(tx, register.id, register.itemCount, entry.items);
        return register.itemCount + inserted;
      }
    }
  }

  /** The queue of every entry, once each queue is known to exist and the caller may manage its registers. */
  private async authorizedQueues(actor: Actor, entries: UploadEntry[]): Promise<QueueRef[]> {
    const { queues, access } = this.deps;
    const refs = [...new Set(entries.map((entry) => entry.queueRef))];
    const resolved = new Map(
      await Promise.all(refs.map(async (ref) => [ref, await queues.resolveQueue(ref, { requestId: actor.requestId })] as const)),
    );
    const found = [...new Set([...resolved.values()].flatMap((queue) => (queue ? [queue] : [])))];
    const grants = new Map(await Promise.all(found.map(async (queue) => [queue, await access.manageGrant(actor, queue)] as const)));

    const hidden: FieldError[] = [];
    const forbidden: FieldError[] = [];
    const result = entries.map((entry, index) => {
      const queue = resolved.get(entry.queueRef);
      const grant = queue ? grants.get(queue) : "hidden";
      if (grant === "hidden") hidden.push({ path: `${index}.queue_id`, message: `No queue ${entry.queueRef}.` });
      if (grant === "forbidden")
        forbidden.push({
          path: `${index}.queue_id`,
          message: `Your role does not allow managing the registers of queue ${entry.queueRef}.`,
        });
      return queue!;
    });
    if (hidden.length) throw new QueueNotFoundError(hidden.map((error) => error.message).join(" "), hidden);
    if (forbidden.length) throw notAllowedToUpload(forbidden);
    return result;
  }
}

function registerKeyOf(queueId: string, name: string): string {
  return `${queueId}\u0000${name}`;
}

/** A value names one item; an element that names it twice is ambiguous, whatever its method. */
function rejectDuplicatesWithinEntries(entries: UploadEntry[]): void {
  const duplicates: { path: string; value: string; message: string }[] = [];
  entries.forEach((entry, entryIndex) => {
    const firstIndex = new Map<string, number>();
    entry.items.forEach((item, itemIndex) => {
      const first = firstIndex.get(item.value);
      if (first === undefined) firstIndex.set(item.value, itemIndex);
      else if (duplicates.length < DUPLICATES_NAMED)
        duplicates.push({
          path: `${entryIndex}.items.${itemIndex}.value`,
          value: item.value,
          message: `Value ${JSON.stringify(item.value)} is also item ${first} of this upload.`,
        });
    });
  });
  if (duplicates.length) {
    throw duplicateValues(
      `The upload names a value more than once: ${quoteList(duplicates.map((duplicate) => duplicate.value))}.`,
      duplicates,
    );
  }
}

function alreadyInRegister(entryIndex: number, entry: UploadEntry, known: string[]) {
  const indexOf = new Map(entry.items.map((item, itemIndex) => [item.value, itemIndex]));
  return duplicateValues(
    `Register ${JSON.stringify(entry.name)} already has ${known.length === 1 ? "the value" : "the values"} ${quoteList(known)}; append adds new values only (upsert overwrites).`,
    known.map((value) => ({
      path: `${entryIndex}.items.${indexOf.get(value)}.value`,
      value,
      message: `The register already has an item with value ${JSON.stringify(value)}.`,
    })),
  );
}

function quoteList(values: string[]): string {
  const unique = [...new Set(values)];
  return unique.map((value) => JSON.stringify(value)).join(", ");
}
