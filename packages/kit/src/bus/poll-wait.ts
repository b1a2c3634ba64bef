/**
 * How long a poller (the outbox relay, webhook's delivery sender) waits before its next round: its interval, or after
 * rounds that failed in a row, the interval doubled for each, at most 10 s.
 */
export function pollDelay(pollIntervalMs: number, failures: number): number {
  return failures ? Math.min(pollIntervalMs * 2 ** failures, 10_000) : pollIntervalMs;
}

/**
 * Waits `ms`, or less when the function given to `onWake` is called first (new work arrived). `onWake` receives it as
 * the wait starts; calling it after the wait ended does nothing.
 */
export function wakeableWait(ms: number, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    onWake(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
