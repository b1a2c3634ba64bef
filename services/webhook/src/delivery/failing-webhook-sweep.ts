import type { OutboxEvents } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import { webhookChanged } from "../domain/configuration-events.js";
import type { WebhookStore } from "../store/webhook-store.js";

export interface FailingWebhookSweepOptions {
  store: WebhookStore;
  events: OutboxEvents;
  logger: Logger;
  /** A webhook whose attempts have all failed for this long (no success since the first failure of the run) is disabled. */
  disableAfterMs: number;
  intervalMs: number;
}

/**
 * Disables webhooks whose receiver keeps failing, off the delivery path: every `intervalMs` one transaction
 * marks them disabled, fails their pending deliveries and publishes `configuration.changed` (change
 * `disabled`, no acting user). The run of failures itself is kept by the delivery record (webhooks.failing_since).
 */
export class FailingWebhookSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: FailingWebhookSweepOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep; overlapping calls share the one under way. */
  sweep(): Promise<void> {
    this.running ??= this.disableFailing()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, "could not disable failing webhooks; trying again later"))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async disableFailing(): Promise<void> {
    const { store, events, disableAfterMs } = this.options;
    const disabled = await store.transaction(async (tx) => {
      const changed = await store.disableFailing(
        disableAfterMs,
        (since) => `every attempt failed since ${since.toISOString()}; PATCH the webhook to enable it again`,
        tx,
      );
      if (changed.length > 0) await events.add(tx, ...changed.map(({ before, after }) => webhookChanged(null, "disabled", before, after)));
      return changed;
    });
    for (const { after } of disabled) {
      this.options.logger.warn({ webhook_id: after.id, failing_since: after.failingSince }, "webhook disabled: its receiver kept failing");
    }
  }
}
