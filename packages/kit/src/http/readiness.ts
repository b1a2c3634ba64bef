import type { Metrics } from "../metrics.js";

type Check = () => Promise<unknown>;

export interface ReadinessReport {
  /** Whether this process can take traffic: every check passes and it is not shutting down. */
  ready: boolean;
  /** The checks that decide readiness: "ok", or why not. */
  checks: Record<string, string>;
  /** Dependencies the process copes without (reported, never deciding readiness): "ok", or why not. */
  dependencies: Record<string, string>;
}

/**
 * Readiness means "this process can take traffic". What it cannot serve a request without is a check (`add`);
 * a dependency it copes without for a while (NATS behind the outbox, auth's JWKS behind the cached keys) is
 * watched (`watch`): reported by /readyz and as `dependency_up`, so that metrics and alerts see the outage,
 * while the process stays in its Service. Taking every replica out for a shared dependency's outage would only
 * turn degraded answers into no answers at all.
 */
export class Readiness {
  private readonly checks = new Map<string, Check>();
  private readonly dependencies = new Map<string, Check>();
  private draining = false;
  private readonly startUpWork: Promise<void>[] = [];

  constructor(private readonly metrics?: Pick<Metrics, "dependencyUp">) {}

  /** A check the process cannot take traffic without. */
  add(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  /** A dependency the process copes without: reported and measured, never deciding readiness. */
  watch(name: string, check: Check): void {
    this.dependencies.set(name, check);
  }

  /**
   * Start-up work that opens and warms what a hot path needs (channels, pools): the process is not ready until it
   * finished. Finished means done or given up within the work's own bound: a dependency that is down is watched, not
   * waited for (it is connected to when it is back), so the work's outcome does not decide readiness.
   */
  addStartUpWork(name: string, work: Promise<unknown>): void {
    let finished = false;
    const finish = () => {
      finished = true;
    };
    this.startUpWork.push(work.then(finish, finish));
    this.add(name, async () => {
      if (!finished) throw new Error("under way");
    });
  }

  /** Resolves when every start-up work added so far finished. */
  async startUpFinished(): Promise<void> {
    await Promise.all(this.startUpWork);
  }

  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async report(timeoutMs = 2_000): Promise<ReadinessReport> {
    const dependencies = this.dependencyReport(timeoutMs);
    if (this.draining) return { ready: false, checks: { process: "shutting down" }, dependencies: await dependencies };
    const checks = await runChecks(this.checks, timeoutMs);
    return { ready: Object.values(checks).every((value) => value === "ok"), checks, dependencies: await dependencies };
  }

  /** Asks the watched dependencies and records each answer in `dependency_up` (1 answered, 0 did not). */
  async dependencyReport(timeoutMs = 2_000): Promise<Record<string, string>> {
    const report = await runChecks(this.dependencies, timeoutMs);
    for (const [name, outcome] of Object.entries(report)) this.metrics?.dependencyUp.set({ dependency: name }, outcome === "ok" ? 1 : 0);
    return report;
  }
}

async function runChecks(checks: Map<string, Check>, timeoutMs: number): Promise<Record<string, string>> {
  const report: Record<string, string> = {};
  await Promise.all(
    [...checks].map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        report[name] = "ok";
      } catch (error) {
        report[name] = error instanceof Error ? error.message : String(error);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return report;
}
