/** Readiness: every registered dependency answers, and the process is not shutting down. */
export class Readiness {
  private readonly checks = new Map<string, () => Promise<unknown>>();
  private draining = false;

  add(name: string, check: () => Promise<unknown>): void {
    this.checks.set(name, check);
  }

  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async report(timeoutMs = 2_000): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const checks: Record<string, string> = {};
    if (this.draining) return { ready: false, checks: { process: "shutting down" } };
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
          checks[name] = "ok";
        } catch (error) {
          checks[name] = error instanceof Error ? error.message : String(error);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return { ready: Object.values(checks).every((value) => value === "ok"), checks };
  }
}
