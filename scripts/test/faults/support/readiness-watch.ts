import type { FaultStack, StackProcessName } from "./fault-stack.js";

export interface ReadinessRecord {
  /** Processes whose `/readyz` was not 200 at some sample. */
  wentUnready: StackProcessName[];
  /** From the end of the fault to the first sample in which every process was ready; undefined if none was. */
  readyAgainAfterMs: number | undefined;
}

/**
 * Samples every process's readiness while a fault happens and after, to tell which processes noticed it and
 * how long after the fault ended the whole stack was ready again, without anyone restarting anything.
 */
export class ReadinessWatch {
  private readonly unready = new Set<StackProcessName>();
  private faultEndedAt: number | undefined;
  private allReadyAt: number | undefined;
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly stack: FaultStack,
    private readonly intervalMs = 250,
  ) {
    this.loop = this.sample();
  }

  faultEnded(): void {
    this.faultEndedAt = Date.now();
  }

  /** Waits (at most `timeoutMs`) until every process was ready after the fault ended, then stops sampling. */
  async settle(timeoutMs: number): Promise<ReadinessRecord> {
    const deadline = Date.now() + timeoutMs;
    while (this.allReadyAt === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    this.stopped = true;
    await this.loop;
    return {
      wentUnready: [...this.unready].sort(),
      readyAgainAfterMs: this.allReadyAt === undefined || this.faultEndedAt === undefined ? undefined : this.allReadyAt - this.faultEndedAt,
    };
  }

  private async sample(): Promise<void> {
    while (!this.stopped) {
      const sampledAt = Date.now();
      const ready = await this.stack.readiness();
      const pending = Object.entries(ready).filter(([, isReady]) => !isReady);
      for (const [name] of pending) this.unready.add(name as StackProcessName);
      const afterFault = this.faultEndedAt !== undefined && sampledAt >= this.faultEndedAt;
      if (pending.length === 0 && afterFault && this.allReadyAt === undefined) this.allReadyAt = sampledAt;
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }
}
