import { ConflictError, NotFoundError } from "@docex/kit/errors";
import type { DeliveryStore } from "../store/delivery-store.js";
import type { Actor } from "./access.js";
import type { Delivery, DeliveryStatus, Page, Paged } from "./records.js";
import type { Webhooks } from "./webhooks.js";

/**
 * The deliveries of a webhook as its managers see them, and manual retries. Listing and retrying need
 * queue.manage: attempts carry what the receiver answered.
 */
export class Deliveries {
  constructor(
    private readonly store: DeliveryStore,
    private readonly webhooks: Webhooks,
    /** Tells the local sender that a delivery became due. */
    private readonly onDue: () => void,
  ) {}

  async list(actor: Actor, webhookId: string, statuses: DeliveryStatus[] | undefined, page: Page): Promise<Paged<Delivery>> {
    await this.webhooks.manageable(actor, webhookId);
    return this.store.deliveriesOf(webhookId, statuses, page);
  }

  /** Sends the delivery once more, whatever its status; 409 while an attempt of it is on the wire or the webhook is disabled. */
  async retry(actor: Actor, webhookId: string, deliveryId: string): Promise<Delivery> {
    const webhook = await this.webhooks.manageable(actor, webhookId);
    if (webhook.status === "disabled") {
      throw new ConflictError("The webhook is disabled: PATCH it to enable it again, then retry.", "webhook_disabled");
    }
    const notFound = () => new NotFoundError(`Webhook ${webhookId} has no delivery ${deliveryId}.`, "delivery_not_found");
    const outcome = await this.store.requestRetry(webhookId, deliveryId);
    if (outcome === "not_found") throw notFound();
    if (outcome === "in_flight")
      throw new ConflictError("An attempt of this delivery is being sent; try again when it has finished.", "delivery_in_flight");
    this.onDue();
    const delivery = await this.store.findDelivery(webhookId, deliveryId);
    if (!delivery) throw notFound();
    return delivery;
  }
}
