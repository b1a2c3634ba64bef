import type { ItemPage, Register, RegisterItem } from "../domain/records.js";

/** Register: `{id, queue_id, name, item_count, created_at, updated_at}` (API.md "Registers"). */
export function registerDto(register: Register) {
  return {
    id: register.id,
    queue_id: register.queueId,
    name: register.name,
    item_count: register.itemCount,
    created_at: register.createdAt.toISOString(),
    updated_at: register.updatedAt.toISOString(),
  };
}

/** RegisterItemDto: `{id, value, label, name, register_id, tax_id, data}`. */
export function itemDto(item: RegisterItem) {
  return {
    id: item.id,
    value: item.value,
    label: item.label,
    name: item.name,
    register_id: item.registerNumber,
    tax_id: item.taxId,
    data: item.data,
  };
}

export function paginationDto(page: ItemPage) {
  return { page: page.page, page_size: page.pageSize, total: page.total, total_pages: Math.ceil(page.total / page.pageSize) };
}
