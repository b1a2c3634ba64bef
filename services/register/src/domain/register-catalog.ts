import { BoundedCache } from "@docex/kit/cache";
import { ValidationError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { RegisterStore } from "../store/register-store.js";
import type { Actor, RegisterAccess } from "./access.js";
import type { DocumentPort } from "./document-port.js";
import { itemIdOf } from "./item-identity.js";
import type { ItemInput, ItemPage, PageRequest, QueueRef, Register, RegisterItem } from "./records.js";
import { queueNotFound, registerNotFound } from "./register-errors.js";

/** How many values one LookupItems call may ask about. */
export const MAX_LOOKUP_VALUES = 10_000;

export interface RegisterCatalogDeps {
  store: RegisterStore;
  queues: DocumentPort;
  access: RegisterAccess;
}

export interface LookupResult {
  /** One per distinct value found, in the order asked. */
  items: RegisterItem[];
  /** The distinct values asked about that the register does not have, in the order asked. */
  missing: string[];
}

function withId(registerId: string, item: ItemInput): RegisterItem {
  return { id: itemIdOf(registerId, item.value), ...item };
}

/** How many registers' queues are remembered between reads. */
const REMEMBERED_REGISTERS = 10_000;

/** Reads: a queue's registers, a register's items page by page or by search, and lookups by value. */
export class RegisterCatalog {
  /**
   * The queue and organization of registers read recently: a register never moves and is never deleted, so
   * paging through one costs one query per page (the page and its total) instead of two.
   */
  private readonly homes = new BoundedCache<string, QueueRef & { id: string }>({ maxEntries: REMEMBERED_REGISTERS });

  constructor(private readonly deps: RegisterCatalogDeps) {}

  private async homeOf(registerId: string): Promise<(QueueRef & { id: string }) | undefined> {
    if (!isUuid(registerId)) return undefined;
    const id = registerId.toLowerCase();
    return this.homes.getOrLoad(id, async () => {
      const register = await this.deps.store.findRegister(id);
      return register && { id: register.id, queueId: register.queueId, organizationId: register.organizationId };
    });
  }

  async registersOfQueue(actor: Actor, queueRef: string): Promise<Register[]> {
    const { queues, access, store } = this.deps;
    const queue = await queues.resolveQueue(queueRef, { requestId: actor.requestId });
    if (!queue || (await access.readGrant(actor, queue)) !== "allowed") throw queueNotFound(queueRef);
    return store.registersOfQueue(queue.queueId);
  }

  /** A page of items in upload order; with `search`, of the items whose value, label, name, register_id or tax_id contains it. */
  async items(actor: Actor, registerId: string, request: PageRequest & { search?: string | undefined }): Promise<ItemPage> {
    const { access, store } = this.deps;
    const register = await this.homeOf(registerId);
    if (!register || (await access.readGrant(actor, register)) !== "allowed") throw registerNotFound(registerId);
    const offset = (request.page - 1) * request.pageSize;
    const found = request.search
      ? await store.searchItems(register.id, request.search, offset, request.pageSize)
      : await store.itemsAt(register.id, offset, request.pageSize);
    return {
      items: found.items.map((item) => withId(register.id, item)),
      page: request.page,
      pageSize: request.pageSize,
      total: found.total,
    };
  }

  /** For automation's `in_register` condition: exact matches of values, within one organization. */
  async lookup(registerId: string, organizationId: string, values: string[]): Promise<LookupResult> {
    if (!organizationId) throw new ValidationError("organization_id is required.");
    if (values.length > MAX_LOOKUP_VALUES) throw new ValidationError(`At most ${MAX_LOOKUP_VALUES} values per lookup.`);
    const register = await this.homeOf(registerId);
    if (!register || register.organizationId !== organizationId.toLowerCase()) throw registerNotFound(registerId);
    const asked = [...new Set(values)];
    // Postgres text cannot hold NUL, so no stored value has one.
    const storable = asked.filter((value) => !value.includes("\u0000"));
    const byValue = new Map((await this.deps.store.itemsWithValues(register.id, storable)).map((item) => [item.value, item]));
    const items: RegisterItem[] = [];
    const missing: string[] = [];
    for (const value of asked) {
      const item = byValue.get(value);
      if (item) items.push(withId(register.id, item));
      else missing.push(value);
    }
    return { items, missing };
  }
}
