import {
  type RegisterCallers,
  type RegisterHandlers,
  type RegisterItem as RegisterItemMessage,
  registerItemDataJson,
  toJsonText,
} from "@docex/protos";
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
    data_json: toJsonText(registerItemDataJson, item.data),
  };
}

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call register today: a new caller is added here.
 */
export const registerCallers: RegisterCallers = {
  // automation: register lookups of its rules.
  LookupItems: ["automation"],
};

/** LookupItems, for automation's `in_register` condition. Errors become status codes in the kit's GrpcServer. */
export function registerHandlers(catalog: RegisterCatalog): RegisterHandlers {
  return {
    async LookupItems(request) {
      const found = await catalog.lookup(request.register_id, request.organization_id, request.values);
      return { items: found.items.map(itemMessage), missing: found.missing };
    },
  };
}
