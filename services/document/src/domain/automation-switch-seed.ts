import type { Logger } from "@docex/kit/logger";
import type { QueueSwitches } from "@docex/queue-dto";
import type { AutomationSettingsSource } from "./automation-switches.js";

/** The queues whose switches automation must be asked for once (the migration that made the projection lists them). */
export interface SwitchSeeds {
  unseeded(limit: number): Promise<string[]>;
  seed(queueId: string, switches: QueueSwitches, askedAt: string): Promise<void>;
}

export interface SwitchSeedOptions {
  /** Pause after automation failed to answer, before asking again. */
  retryMs: number;
  batchSize: number;
  /**
   * How far before the question the answer is dated. A change whose event is dated within this margin (it may have
   * committed after automation answered, or the clocks differ) still overwrites the answer when it arrives; the
   * events after it arrive too, in order, so the projection ends at the newest state either way.
   */
  marginMs: number;
}

export const SWITCH_SEED_DEFAULTS: SwitchSeedOptions = { retryMs: 5_000, batchSize: 50, marginMs: 5 * 60_000 };

/**
 * Seeds the projection of automation's switches for the queues that existed before document kept it: their
 * switches may have been set before automation published configuration.changed, so only automation knows them. Asks
 * once per queue, at start, until every such queue is answered; queues created later start at the defaults, which
 * is what automation keeps for them, and follow the events from then on. Until it is done, `done` is false (the
 * service is not ready), so an upgraded deployment keeps serving from the instance it replaces rather than show
 * the defaults for a queue whose switches are on.
 */
export class AutomationSwitchSeed {
  private finished = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly seeds: SwitchSeeds,
    private readonly automation: AutomationSettingsSource,
    private readonly logger: Logger,
    private readonly options: SwitchSeedOptions = SWITCH_SEED_DEFAULTS,
  ) {}

  get done(): boolean {
    return this.finished;
  }

  start(): void {
    this.running ??= this.run().catch((error) => this.logger.error({ err: error }, "seeding automation's switches stopped"));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let seeded = 0;
    while (!this.stopped) {
      try {
        const queueIds = await this.seeds.unseeded(this.options.batchSize);
        if (queueIds.length === 0) break;
        for (const queueId of queueIds) {
          if (this.stopped) return;
          const askedAt = new Date(Date.now() - this.options.marginMs).toISOString();
          await this.seeds.seed(queueId, await this.automation.settingsOf(queueId), askedAt);
          seeded += 1;
        }
      } catch (error) {
        this.logger.warn(
          { err: error, seeded },
          "could not seed a queue's switches (automation or the database did not answer); trying again shortly",
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.retryMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
    if (this.stopped) return;
    if (seeded > 0) this.logger.info({ seeded }, "seeded automation's switches of the queues that existed before the projection");
    this.finished = true;
  }
}
