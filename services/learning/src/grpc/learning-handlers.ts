import { ValidationError } from "@docex/kit";
import type { LearningCallers, LearningHandlers } from "@docex/protos";
import { z } from "zod";
import { supplierIdentity } from "../domain/supplier.js";
import type { SupplierMemories } from "../domain/supplier-memory.js";

const uuid = z.guid();
const orNull = (text: string) => (text.trim() === "" ? null : text);

/**
 * The services that may call each method (the service names of their certificates); the gRPC server refuses
 * everyone else (PERMISSION_DENIED). Derived from the clients that call learning today: a new caller is added here.
 */
export const learningCallers: LearningCallers = {
  // No service calls Suggest today; the extraction service is the one it is meant for.
  Suggest: ["extraction"],
};

/** docex.learning.v1.Learning: what other contexts may ask of the memory. Callers are services, trusted inside the cluster. */
export function learningHandlers(deps: { memories: SupplierMemories }): LearningHandlers {
  return {
    async Suggest(request) {
      if (!uuid.safeParse(request.queue_id).success) {
        throw new ValidationError("queue_id must be a UUID.", [{ path: "queue_id", message: "must be a UUID" }]);
      }
      const supplier = request.supplier ?? { tax_id: "", register_id: "", name: "" };
      const identity = supplierIdentity({
        taxId: orNull(supplier.tax_id),
        registerId: orNull(supplier.register_id),
        name: orNull(supplier.name),
      });
      const memory = await deps.memories.recall(request.queue_id.toLowerCase(), identity);
      return {
        // The message has one value per field; a multi-value field's further values are not in it.
        fields: memory.fields.map((field) => ({ key: field.key, value: field.content.value, pinned: field.pinned })),
        line_items_visibility: memory.lineItemsVisibility ?? "",
        tax_detail_visibility: memory.taxDetailVisibility ?? "",
      };
    },
  };
}
