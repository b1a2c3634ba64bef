/**
 * Runs `sweep` now and then: the first run after a second at most (the interval when it is shorter), then `intervalMs`
 * after each run ends, so two never overlap. A run that fails is handed to `onError` and the next one retries. The
 * timers do not keep the process alive; stop() cancels the next run and waits for one in progress.
 */
export class PeriodicSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly sweep: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    const tick = () => {
      this.running = this.sweep()
        .catch(this.onError)
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.timer = setTimeout(tick, this.intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, Math.min(this.intervalMs, 1_000)).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
