import { createEvent, type DocexEvent } from "@docex/events";
import type { Register, UploadMethod } from "./records.js";

/** `register.updated`: one per element of an upload, with the register as that element left it, by the user who uploaded it. */
export function registerUpdated(
  register: Register,
  method: UploadMethod,
  by: { userId: string; requestId: string },
): DocexEvent<"register.updated"> {
  return createEvent("register.updated", {
    organization_id: register.organizationId,
    actor_user_id: by.userId,
    request_id: by.requestId,
    data: {
      register_id: register.id,
      queue_id: register.queueId,
      name: register.name,
      method,
      item_count: register.itemCount,
    },
  });
}
