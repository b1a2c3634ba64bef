import type { RegisterHandlers, RegisterItem as RegisterItemMessage } from "@docex/protos";
import type { RegisterItem } from "../domain/records.js";
import type { RegisterCatalog } from "../domain/register-catalog.js";

function itemMessage(item: RegisterItem): RegisterItemMessage {
  return {
    id: item.id,
    value: item.value,
    label: item.label ?? "",
    name: item.name ?? "",
    register_id: item.registerNumber ?? "",
    tax_id: item.taxId ?? "",
    data_json: JSON.stringify(item.data),
  };
}

/** LookupItems, for automation's `in_register` condition. Errors become status codes in the kit's GrpcServer. */
export function registerHandlers(catalog: RegisterCatalog): RegisterHandlers {
  return {
    async LookupItems(request) {
      const found = await catalog.lookup(request.register_id, request.organization_id, request.values);
      return { items: found.items.map(itemMessage), missing: found.missing };
    },
  };
}
