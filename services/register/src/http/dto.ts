import { z } from "zod";
import type { Register, RegisterItem } from "../domain/records.js";

export const registerSchema = z.object({
  id: z.uuid(),
  queue_id: z.uuid(),
  name: z.string(),
  item_count: z.number().int().min(0),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const registerItemSchema = z.object({
  id: z.uuid(),
  value: z.string(),
  label: z.string().nullable(),
  name: z.string().nullable(),
  register_id: z.string().nullable().describe("The supplier's register number (company id), not the register's id."),
  tax_id: z.string().nullable(),
  data: z.unknown().describe("Anything the upload attached to the item."),
});

/** Register: `{id, queue_id, name, item_count, created_at, updated_at}` (API.md "Registers"). */
export function registerDto(register: Register): z.infer<typeof registerSchema> {
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
export function itemDto(item: RegisterItem): z.infer<typeof registerItemSchema> {
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
