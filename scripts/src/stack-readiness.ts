/**
 * Waits for the stack's processes to answer GET /readyz with 200 and, when one does not in time, says what each
 * last got (issue 40 item 11): the connection's error (`connect ECONNREFUSED 127.0.0.1:8081`, `bad port`), the
 * process's own answer (`HTTP 503: database: connect ECONNREFUSED …`), or that it exited.
 */

export interface AwaitedProcess {
  name: string;
  httpPort: number;
  /** Set when the process is gone: nothing will ever answer. */
  exited?: () => string | undefined;
}

/** What a /readyz answer says is wrong: the checks that are not "ok" (the kit's report), or the body's start. */
function notReadyBecause(status: number, body: string): string {
  try {
    const report = JSON.parse(body) as { checks?: Record<string, string> };
    const failing = Object.entries(report.checks ?? {}).filter(([, outcome]) => outcome !== "ok");
    if (failing.length > 0) return `HTTP ${status}: ${failing.map(([check, outcome]) => `${check}: ${outcome}`).join("; ")}`;
  } catch {}
  return `HTTP ${status}${body.trim() ? `: ${body.trim().slice(0, 200)}` : ""}`;
}

/** The error of a failed fetch, its cause first: `connect ECONNREFUSED 127.0.0.1:8081` rather than `fetch failed`. */
export function fetchFailure(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const describe = (value: unknown) => (value instanceof Error ? value.message : String(value));
  if (cause !== undefined) {
    // A connection that failed to several addresses (127.0.0.1 and ::1) is an AggregateError of them.
    if (cause instanceof AggregateError && cause.errors.length > 0) return cause.errors.map(describe).join("; ");
    return describe(cause);
  }
  if ((error as Error)?.name === "TimeoutError") return "no answer within 2 s";
  return describe(error);
}

/** Resolves once every process is ready; rejects after `timeoutMs` naming each that is not, with what it last got. */
export async function waitUntilReady(processes: AwaitedProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Map(processes.map((proc) => [proc, "not asked yet"]));
  while (pending.size > 0) {
    if (Date.now() > deadline) {
      const lines = [...pending].map(([proc, last]) => `${proc.name} (http://127.0.0.1:${proc.httpPort}/readyz: ${last})`);
      throw new Error(`not ready within ${timeoutMs} ms: ${lines.join(", ")}`);
    }
    await Promise.all(
      [...pending.keys()].map(async (proc) => {
        const exited = proc.exited?.();
        if (exited) {
          pending.set(proc, `the process exited (${exited})`);
          return;
        }
        try {
          const response = await fetch(`http://127.0.0.1:${proc.httpPort}/readyz`, { signal: AbortSignal.timeout(2_000) });
          if (response.status === 200) {
            pending.delete(proc);
            return;
          }
          pending.set(proc, notReadyBecause(response.status, await response.text().catch(() => "")));
        } catch (error) {
          pending.set(proc, fetchFailure(error));
        }
      }),
    );
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
