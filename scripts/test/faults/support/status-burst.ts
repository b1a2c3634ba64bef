import type { Answer } from "../../support/stack.js";

export type Call = (method: string, apiPath: string, body?: unknown) => Promise<Answer>;

export interface StatusBurstOptions {
  call: Call;
  queueId: string;
  documents: number;
  /** Status changes per document, the extraction's `received → to_validate` included. */
  changesPerDocument: number;
  concurrency: number;
  /** The whole burst fails after this long. */
  timeoutMs: number;
}

const MAX_TRIES = 80;
const READ_TIMEOUT_MS = 90_000;

/**
 * Status changes through the gateway as a user makes them: upload a document, record its extraction
 * (`received → to_validate`), then move it `to_validate → postponed → to_validate …`. Each change the
 * document service committed is one `document_status_changed` that must reach the receiver.
 *
 * A request that fails (5xx, cut connection, timeout) may or may not have committed, so the document is read
 * back: where it now is says whether that change happened; if not, the move is sent again. That way the
 * ledger of changes made is exact even while faults make requests fail.
 */
export class StatusBurst {
  /** Document id → the statuses it was moved to, in order. */
  readonly changes = new Map<string, string[]>();
  made = 0;
  /** Requests that did not answer as asked, by what they answered, each settled by reading the document. */
  readonly failures = new Map<string, number>();
  /** Answers 500 (reads included): a fault the services should have named (503 and the like), with a few bodies. */
  internalErrors = 0;
  readonly internalErrorExamples: string[] = [];
  startedAt = 0;
  endedAt = 0;
  private readonly deadline: number;

  constructor(private readonly options: StatusBurstOptions) {
    this.deadline = Date.now() + options.timeoutMs;
  }

  get target(): number {
    return this.options.documents * this.options.changesPerDocument;
  }

  get failedRequests(): number {
    return [...this.failures.values()].reduce((sum, count) => sum + count, 0);
  }

  async run(): Promise<void> {
    this.startedAt = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(this.options.concurrency, this.options.documents) }, async () => {
        while (next < this.options.documents) await this.document(next++);
      }),
    );
    this.endedAt = Date.now();
  }

  /** Resolves once `count` changes were made (or the burst ended). */
  async reached(count: number): Promise<void> {
    while (this.made < count && this.endedAt === 0 && Date.now() < this.deadline) await sleep(25);
  }

  private async document(index: number): Promise<void> {
    const { call, queueId, changesPerDocument } = this.options;
    let documentId: string | undefined;
    for (let attempt = 0; documentId === undefined; attempt++) {
      this.checkDeadline(`uploading document ${index}`);
      const answer = await attempted(() => call("POST", `/queues/${queueId}/documents`, { file_name: `fault-${index}.pdf` }));
      if (answer?.status === 201) documentId = answer.body.data.id as string;
      else {
        // A lost answer may leave a document behind; it never changes status, so it changes no count.
        this.failed(answer, "upload");
        if (attempt >= MAX_TRIES) throw new Error(`uploading document ${index} failed ${MAX_TRIES} times`);
        await sleep(backoff(attempt));
      }
    }
    this.changes.set(documentId, []);
    await this.move(documentId, "received", "to_validate", () =>
      call("POST", `/documents/${documentId}/extraction`, {
        annotations: [
          { key: "invoice_id", value: `INV-${index}` },
          { key: "total_due", value: "100.00" },
        ],
        confidence: 90,
      }),
    );
    let current = "to_validate";
    for (let change = 1; change < changesPerDocument; change++) {
      const target = current === "to_validate" ? "postponed" : "to_validate";
      await this.move(documentId, current, target, () => call("POST", `/documents/${documentId}/status`, { status: target }));
      current = target;
    }
  }

  private async move(documentId: string, from: string, to: string, send: () => Promise<Answer>): Promise<void> {
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      this.checkDeadline(`moving ${documentId} to ${to}`);
      const answer = await attempted(send);
      if (answer?.status === 200) {
        if (answer.body?.data?.status !== to) throw new Error(`${documentId} answered status ${answer.body?.data?.status}, expected ${to}`);
        return this.record(documentId, to);
      }
      if (answer && [400, 401, 403, 404].includes(answer.status)) {
        throw new Error(`moving ${documentId} ${from} → ${to}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      this.failed(answer, to === "to_validate" && from === "received" ? "extraction" : "status");
      const now = await this.statusOf(documentId);
      if (now === to) return this.record(documentId, to);
      if (now !== from) throw new Error(`${documentId} is ${now}; expected ${from} or ${to}`);
      await sleep(backoff(attempt));
    }
    throw new Error(`moving ${documentId} ${from} → ${to} failed ${MAX_TRIES} times`);
  }

  /** Where the document is now, read until a read succeeds. */
  private async statusOf(documentId: string): Promise<string> {
    const deadline = Date.now() + READ_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      const answer = await attempted(() => this.options.call("GET", `/documents/${documentId}`));
      if (answer?.status === 200) return answer.body.data.status as string;
      this.failed(answer, "read");
      if (Date.now() > deadline)
        throw new Error(`${documentId} could not be read for ${READ_TIMEOUT_MS} ms: ${answer?.status ?? "no answer"}`);
      await sleep(backoff(attempt));
    }
  }

  private record(documentId: string, status: string): void {
    this.changes.get(documentId)!.push(status);
    this.made++;
  }

  private failed(answer: Answer | undefined, what: string): void {
    const reason = `${what}: ${answer ? `${answer.status}${answer.body?.code ? ` ${answer.body.code}` : ""}` : "no answer"}`;
    if (answer?.status === 500) {
      this.internalErrors++;
      if (this.internalErrorExamples.length < 5) this.internalErrorExamples.push(`${what}: ${JSON.stringify(answer.body)}`);
    }
    this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
  }

  private checkDeadline(doing: string): void {
    if (Date.now() > this.deadline) throw new Error(`the burst ran out of time (${this.options.timeoutMs} ms) while ${doing}`);
  }
}

/** The answer, or undefined when the request got none (connection refused or cut, timeout). */
async function attempted(send: () => Promise<Answer>): Promise<Answer | undefined> {
  try {
    return await send();
  } catch {
    return undefined;
  }
}

const backoff = (attempt: number) => Math.min(2_000, 100 * 2 ** Math.min(attempt, 5));
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
