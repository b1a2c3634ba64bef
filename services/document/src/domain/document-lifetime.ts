import { createEvent, MAX_PURGED_DOCUMENTS } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { UnitOfWork } from "@docex/kit/db";
import type { Logger } from "@docex/kit/logger";
import type { KeptFiles } from "../files/kept-files.js";
import type { LifetimeStore, QueueWithLifetime } from "../store/lifetime-store.js";
import { PeriodicSweep } from "./periodic-sweep.js";

const DAY_MS = 24 * 3600 * 1000;

export interface LifetimeSettings {
  /** How often the sweep looks for documents past their queue's lifetime. */
  sweepIntervalMs: number;
  /** Batches of one queue per sweep at most, so that one huge queue does not hold the others back for long. */
  maxBatchesPerQueue: number;
}

/**
 * The lifetime sweep: documents of a queue with `document_lifetime_days` uploaded longer ago than that are purged,
 * whatever their status, with their files, changes and jobs, a batch per transaction that also publishes
 * `documents.purged` (every service deletes what it keeps of them; the audit log erases their entries' values).
 */
export class DocumentLifetime {
  private readonly sweep: PeriodicSweep;

  constructor(
    private readonly sql: UnitOfWork,
    private readonly store: LifetimeStore,
    private readonly events: OutboxEvents,
    private readonly files: KeptFiles,
    private readonly logger: Logger,
    private readonly settings: LifetimeSettings,
  ) {
    this.sweep = new PeriodicSweep(
      settings.sweepIntervalMs,
      async () => {
        const purged = await this.purgeExpired();
        if (purged) this.logger.info({ purged }, "purged documents past their queue's lifetime");
      },
      (error) => this.logger.warn({ err: error }, "document lifetime sweep failed; the next one retries"),
    );
  }

  /** Purges what is past its lifetime at `now`; answers how many documents went. */
  async purgeExpired(now = new Date()): Promise<number> {
    let purged = 0;
    for (const queue of await this.store.queuesWithLifetime()) purged += await this.purgeQueue(queue, now);
    return purged;
  }

  private async purgeQueue(queue: QueueWithLifetime, now: Date): Promise<number> {
    const before = new Date(now.getTime() - queue.documentLifetimeDays * DAY_MS);
    let purged = 0;
    for (let batch = 0; batch < this.settings.maxBatchesPerQueue; batch++) {
      const { ids, withFiles } = await this.sql.transaction(async (tx) => {
        const { purged: ids, withFiles } = await this.store.purgeOlderThan(tx, queue.id, before, MAX_PURGED_DOCUMENTS);
        if (ids.length > 0) {
          const data = { organization_id: queue.organizationId, workspace_id: queue.workspaceId, queue_id: queue.id, document_ids: ids };
          await this.events.add(tx, createEvent("documents.purged", { organization_id: queue.organizationId, data, actor_user_id: null }));
        }
        return { ids, withFiles };
      });
      await this.files.discard(withFiles);
      purged += ids.length;
      if (ids.length < MAX_PURGED_DOCUMENTS) break;
    }
    return purged;
  }

  start(): void {
    this.sweep.start();
  }

  stop(): Promise<void> {
    return this.sweep.stop();
  }
}
