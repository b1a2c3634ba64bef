import type { Logger } from "@docex/kit/logger";

/**
 * Work that runs after the answer went out: the part of `register`, `magic-link` and
 * `password-reset` that depends on whether the email is registered, so that the answer's timing
 * cannot tell. Failures are logged; stopping the service waits for what is in flight.
 */
export class BackgroundWork {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(what: string, requestId: string | undefined, work: () => Promise<void>): void {
    const running = work()
      .catch((error: unknown) => this.logger.error({ err: error, work: what, request_id: requestId }, "background work failed"))
      .finally(() => this.pending.delete(running));
    this.pending.add(running);
  }

  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.pending]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
