import type { Logger } from "@docex/kit/logger";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { ClaimedJob, ValidationJobStore } from "../store/validation-job-store.js";
import type { DocumentChanges } from "./document-changes.js";
import { type ExternalValidator, validationChange } from "./validation.js";

export interface InitialValidationSettings {
  /** INITIAL_VALIDATION_TIMEOUT_MS: what the receiver may take. */
  budgetMs: number;
  /** Waits before the 2nd, 3rd, … attempt after the receiver was unavailable; the last one ends the tries. */
  retryDelaysMs: number[];
  /** How often due jobs (retries, jobs of other replicas' extractions) are looked for besides being woken. */
  pollIntervalMs: number;
  /** Validations running at once in this process. */
  concurrency: number;
}

export const INITIAL_VALIDATION_DEFAULTS: Omit<InitialValidationSettings, "budgetMs"> = {
  retryDelaysMs: [1_000, 5_000, 30_000, 120_000, 600_000],
  pollIntervalMs: 1_000,
  concurrency: 8,
};

/** A job is leased for the budget, the call's deadline and this much more, then another runner may take it. */
const LEASE_SLACK_MS = 30_000;

export interface InitialValidationDeps {
  jobs: ValidationJobStore;
  documents: DocumentStore;
  hierarchy: HierarchyStore;
  changes: DocumentChanges;
  external: ExternalValidator;
  logger: Logger;
}

/**
 * Runs `initial_document_validation` after extraction, away from any request: the extraction's transaction
 * schedules a job (ValidationJobStore), this runner claims due jobs (replicas share them; a runner that dies
 * leaves its job due again after the lease), calls Validate with the initial budget, and applies the answer to
 * the version it validated, or to a newer one with the same annotations. A receiver that is unavailable is
 * tried again later, with a `warning` on the document meanwhile; annotations that changed while the answer
 * was on its way make the job run again on the new ones.
 */
export class InitialValidationRunner {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private wanted = false;
  private stopped = false;

  constructor(
    private readonly deps: InitialValidationDeps,
    private readonly settings: InitialValidationSettings,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.settings.pollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due jobs now (after an extraction commits). */
  wake(): void {
    if (this.stopped) return;
    this.wanted = true;
    this.claiming ??= this.claimWhileWanted().finally(() => {
      this.claiming = undefined;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.running]);
  }

  private async claimWhileWanted(): Promise<void> {
    while (this.wanted && !this.stopped) {
      this.wanted = false;
      const room = this.settings.concurrency - this.running.size;
      if (room <= 0) return;
      let jobs: ClaimedJob[];
      try {
        jobs = await this.deps.jobs.claim(room, this.settings.budgetMs * 2 + LEASE_SLACK_MS);
      } catch (error) {
        this.deps.logger.warn({ err: error }, "could not claim initial validation jobs");
        return;
      }
      for (const job of jobs) {
        const run: Promise<void> = this.run(job)
          .catch((error: unknown) => this.deps.logger.error({ err: error, document_id: job.documentId }, "initial validation failed"))
          .finally(() => {
            this.running.delete(run);
            this.wake();
          });
        this.running.add(run);
      }
      // A full batch may mean more are due.
      if (jobs.length === room) this.wanted = true;
    }
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { deps } = this;
    const document = await deps.documents.find(job.documentId);
    const queue = document && (await deps.hierarchy.findQueue({ id: document.queueId }));
    if (!document || !queue) return deps.jobs.finish(job);

    const result = await deps.external.validate({
      type: "initial_document_validation",
      document,
      previousAnnotations: [],
      userId: null,
      timeoutMs: this.settings.budgetMs,
    });
    const lastTry = job.attempt > this.settings.retryDelaysMs.length;
    const retrying = result.outcome === "unavailable" && !lastTry;
    const change = validationChange(queue.annotationSchema, document, result, {
      unavailable: (reason) =>
        retrying
          ? `Initial external validation was unavailable (${reason}); it will be tried again.`
          : `Initial external validation was unavailable (${reason}); it was given up after ${job.attempt} attempts.`,
      rejected: (reason) => `Initial external validation's answer was rejected (${reason}).`,
    });
    if (change) {
      const outcome = await deps.changes.applyToAnnotationsOf(document, { ...change, documentId: document.id });
      if (!outcome.applied && outcome.reason === "version_conflict") {
        // The annotations changed while the answer was on its way: validate what is there now.
        if (!lastTry) return deps.jobs.retryLater(job, 0, "the annotations changed during validation");
        return deps.jobs.finish(job);
      }
    }
    if (retrying) {
      const delay = this.settings.retryDelaysMs[job.attempt - 1] ?? 0;
      return deps.jobs.retryLater(job, delay, result.reason);
    }
    return deps.jobs.finish(job);
  }
}
