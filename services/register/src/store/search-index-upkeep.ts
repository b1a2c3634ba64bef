import type { Sql } from "@docex/kit/db";
import type { Logger } from "@docex/kit/logger";
import { ITEM_SEARCH_INDEX } from "./migrations.js";

export interface SearchIndexUpkeepOptions {
  /** Uploads that wrote at least this many items have their trigrams merged right after they commit. */
  threshold?: number;
}

/**
 * Bulk uploads leave their trigrams in the GIN index's pending list (fast to append, see the migration),
 * and every search reads that list from end to end. This merges it into the index as soon as a large upload
 * has committed, instead of waiting for autovacuum; searches stay correct meanwhile, only slower. One merge
 * runs at a time; uploads that commit during one are covered by a single follow-up.
 */
export class SearchIndexUpkeep {
  private readonly threshold: number;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly sql: Sql,
    private readonly logger: Logger,
    options: SearchIndexUpkeepOptions = {},
  ) {
    this.threshold = options.threshold ?? 5_000;
  }

  afterUpload(itemsWritten: number): void {
    if (itemsWritten < this.threshold || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.mergeUntilIdle().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once no merge is running; for tests and benchmarks that measure a settled index. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  private async mergeUntilIdle(): Promise<void> {
    do {
      this.again = false;
      const started = performance.now();
      try {
        await this.sql.transaction(async (tx) => {
          // The merge sorts the pending entries in memory of this size; less means more passes over the index.
          await this.sql.run("SET LOCAL maintenance_work_mem = '256MB'", [], tx);
          await this.sql.run(`SELECT gin_clean_pending_list('${ITEM_SEARCH_INDEX}'::regclass)`, [], tx);
        });
        this.logger.debug({ ms: Math.round(performance.now() - started) }, "search index pending list merged");
      } catch (error) {
        // Autovacuum merges the list as well; a failure here costs search speed, not correctness.
        this.logger.warn({ err: error }, "could not merge the search index's pending list");
      }
    } while (this.again && !this.stopped);
  }
}
