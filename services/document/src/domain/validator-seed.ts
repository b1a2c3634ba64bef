import type { Logger } from "@docex/kit";
import type { FailurePolicy } from "./validation.js";

/** A validator as the webhook service lists it (ListValidators). */
export type ListedValidator =
  | { kind: "link"; queueId: string; type: string; failurePolicy: FailurePolicy }
  | { kind: "webhook"; webhookId: string; type: string; entityType: "document" | "queue" | "workspace" | "organization"; entityId: string };

/** The webhook service's ListValidators: throws when it does not answer. */
export interface ValidatorList {
  /** A page after the key `after` ("" for the first); `last` is the key to ask after for the next one. */
  listValidators(after: string, limit: number): Promise<{ validators: ListedValidator[]; more: boolean; last: string }>;
}

/** Where the seed records what it was told. */
export interface ValidatorSeeds {
  seeded(): Promise<boolean>;
  seed(validators: ListedValidator[], askedAt: string): Promise<void>;
  markSeeded(): Promise<void>;
}

export interface ValidatorSeedOptions {
  /** Pause after the webhook service or the database failed, before trying again. */
  retryMs: number;
  pageSize: number;
  /** How far before the question the answer is dated, so that a change whose event is dated near it still wins. */
  marginMs: number;
}

export const VALIDATOR_SEED_DEFAULTS: ValidatorSeedOptions = { retryMs: 5_000, pageSize: 500, marginMs: 5 * 60_000 };

/**
 * Seeds the projections of the webhook service's validators once: validators made before the document service
 * followed them (links before its projection, validation webhooks before theirs) are known only to the webhook
 * service. Until the seed is done, every edit asks Validate, as before the projections; the service is ready
 * meanwhile (nothing is shown wrong, it only costs a call). Replicas that seed at once record the same rows.
 */
export class ValidatorSeed {
  private stopped = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly seeds: ValidatorSeeds,
    private readonly webhook: ValidatorList,
    private readonly logger: Logger,
    private readonly options: ValidatorSeedOptions = VALIDATOR_SEED_DEFAULTS,
  ) {}

  start(): void {
    this.running ??= this.run().catch((error) => this.logger.error({ err: error }, "seeding the validator projections stopped"));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (await this.seeds.seeded()) return;
        const seeded = await this.seedAll();
        if (seeded === undefined) return;
        await this.seeds.markSeeded();
        this.logger.info({ seeded }, "seeded the validator projections from the webhook service");
        return;
      } catch (error) {
        this.logger.warn(
          { err: error },
          "could not seed the validator projections (the webhook service or the database did not answer); trying again shortly",
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
  }

  /** Every page of the list, recorded as of one moment; undefined when stopped half-way. */
  private async seedAll(): Promise<number | undefined> {
    const askedAt = new Date(Date.now() - this.options.marginMs).toISOString();
    let after = "";
    let seeded = 0;
    for (;;) {
      if (this.stopped) return undefined;
      const page = await this.webhook.listValidators(after, this.options.pageSize);
      await this.seeds.seed(page.validators, askedAt);
      seeded += page.validators.length;
      if (!page.more) return seeded;
      after = page.last;
    }
  }
}
