/**
 * Which file is read next. Files wait in two lanes: `text` (e-invoices and PDFs with a text layer: tens of
 * milliseconds) and `ocr` (scans: a second or more a page). Within a lane each organization has a queue of its own
 * and the organizations take turns, so one organization's 500 scans hold up another organization's file by at most
 * the files already being read. A file in the text lane is always read before a waiting scan, and
 * scans never take every reader: one reader is kept for text, so a text file never waits behind OCR. Within a lane,
 * organizations are served by start-time fair queuing (see LaneQueue).
 */
export type Lane = "text" | "ocr";

/** Thrown to a file still waiting when the scheduler closes (the service stops): its event goes back to NATS. */
export class SchedulerClosedError extends Error {
  constructor() {
    super("the extraction service is stopping; the file is left for the next instance");
  }
}

interface Ticket {
  start: () => void;
  cancel: (error: Error) => void;
}

/**
 * One lane: a queue per organization and start-time fair queuing between them. Each organization has a tag that
 * grows by one with each file it starts; one that joins the line takes at least the lane's current tag (that of the
 * file started last), so it neither waits behind another's backlog nor jumps ahead for the turns it missed. The next file is the
 * oldest of the organization with the lowest tag; among equals, the one longest in line.
 */
class LaneQueue {
  private readonly waiting = new Map<string, Ticket[]>();
  private readonly line: string[] = [];
  private readonly tags = new Map<string, number>();
  private current = 0;
  size = 0;

  push(organizationId: string, ticket: Ticket): void {
    const queue = this.waiting.get(organizationId);
    if (queue) queue.push(ticket);
    else {
      this.waiting.set(organizationId, [ticket]);
      this.line.push(organizationId);
      this.tags.set(organizationId, Math.max(this.tags.get(organizationId) ?? 0, this.current));
    }
    this.size += 1;
  }

  shift(): Ticket | undefined {
    let chosen = -1;
    let lowest = Number.POSITIVE_INFINITY;
    for (const [index, organizationId] of this.line.entries()) {
      const tag = this.tags.get(organizationId) as number;
      if (tag < lowest) {
        lowest = tag;
        chosen = index;
      }
    }
    if (chosen < 0) return undefined;
    const organizationId = this.line[chosen] as string;
    const queue = this.waiting.get(organizationId) as Ticket[];
    const ticket = queue.shift() as Ticket;
    this.current = lowest;
    this.line.splice(chosen, 1);
    this.tags.set(organizationId, lowest + 1);
    if (queue.length > 0) this.line.push(organizationId);
    else this.waiting.delete(organizationId);
    this.size -= 1;
    if (this.tags.size > 2 * this.line.length + 64) this.forgetPast();
    return ticket;
  }

  /** Tags of organizations out of line that the lane's current tag has caught up with: they would join at it anyway. */
  private forgetPast(): void {
    for (const [organizationId, tag] of this.tags)
      if (tag <= this.current && !this.waiting.has(organizationId)) this.tags.delete(organizationId);
  }

  drain(): Ticket[] {
    const tickets = this.line.flatMap((organizationId) => this.waiting.get(organizationId) ?? []);
    this.waiting.clear();
    this.tags.clear();
    this.line.length = 0;
    this.size = 0;
    return tickets;
  }
}

export interface ReadSchedulerOptions {
  /** Files read at once (the pool's readers). */
  readers: number;
  /** Of those, scans read at once: fewer than `readers`, so that one reader is always free for text. */
  ocrReaders: number;
}

export class ReadScheduler {
  private readonly lanes: Record<Lane, LaneQueue> = { text: new LaneQueue(), ocr: new LaneQueue() };
  private readonly running: Record<Lane, number> = { text: 0, ocr: 0 };
  private closed = false;

  constructor(private readonly options: ReadSchedulerOptions) {
    if (options.ocrReaders < 1 || options.ocrReaders >= options.readers)
      throw new Error(`ocrReaders must be between 1 and readers - 1 (readers ${options.readers}, ocrReaders ${options.ocrReaders})`);
  }

  /** Runs `work` when the organization's turn in the lane comes and a reader is free for it. */
  run<T>(organizationId: string, lane: Lane, work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new SchedulerClosedError());
    return new Promise<T>((resolve, reject) => {
      this.lanes[lane].push(organizationId, {
        start: () => {
          this.running[lane] += 1;
          // The next file starts before this one's caller goes on.
          work()
            .finally(() => {
              this.running[lane] -= 1;
              this.dispatch();
            })
            .then(resolve, reject);
        },
        cancel: reject,
      });
      this.dispatch();
    });
  }

  /** Files waiting, per lane (a gauge). */
  waiting(): Record<Lane, number> {
    return { text: this.lanes.text.size, ocr: this.lanes.ocr.size };
  }

  /** Files being read, per lane. */
  reading(): Record<Lane, number> {
    return { ...this.running };
  }

  /** Refuses new files and lets go of the waiting ones (they fail with SchedulerClosedError); reads in hand go on. */
  close(): void {
    this.closed = true;
    for (const lane of Object.values(this.lanes)) for (const ticket of lane.drain()) ticket.cancel(new SchedulerClosedError());
  }

  private dispatch(): void {
    while (this.running.text + this.running.ocr < this.options.readers) {
      const lane = this.lanes.text.size > 0 ? "text" : this.running.ocr < this.options.ocrReaders ? "ocr" : undefined;
      const next = lane && this.lanes[lane].shift();
      if (!next) return;
      next.start();
    }
  }
}
