import { ROOT_CONTEXT, SpanStatusCode, trace } from "@opentelemetry/api";
import { QueryTypes, type Sequelize, type Transaction } from "sequelize";
import { type Migration, sqlMigration } from "../db/database.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { contextOfCarrier, currentTraceCarrier, SpanKind, startSpan, type TraceCarrier } from "../tracing/spans.js";
import type { EventBus } from "./event-bus.js";

export interface OutboxEvent {
  /** The event id; it becomes the JetStream message id, so a republish is dropped as a duplicate. */
  id: string;
  subject: string;
  payload: unknown;
  requestId?: string | undefined;
  /** The trace the event belongs to; the active one when `add` is called, unless given. */
  traceContext?: TraceCarrier | undefined;
}

/** Tables the kit needs in every service database: the outbox and the consumers' memory of handled events. */
export const kitMigrations: Migration[] = [
  sqlMigration(
    "0000-kit-outbox-and-processed-events",
    `
        CREATE TABLE IF NOT EXISTS outbox (
          seq          bigserial PRIMARY KEY,
          id           uuid NOT NULL UNIQUE,
          subject      text NOT NULL,
          payload      jsonb NOT NULL,
          request_id   text,
          created_at   timestamptz NOT NULL DEFAULT now(),
          published_at timestamptz
        );
        CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;
        CREATE TABLE IF NOT EXISTS processed_events (
          consumer     text NOT NULL,
          event_id     text NOT NULL,
          processed_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (consumer, event_id)
        );
      `,
  ),
  // The trace context of the request that wrote the event (W3C traceparent and tracestate), so that the relay's
  // publish, and the consumers after it, join that request's trace.
  sqlMigration("0001-kit-outbox-trace-context", "ALTER TABLE outbox ADD COLUMN IF NOT EXISTS trace_context jsonb"),
];

interface OutboxRow {
  seq: string;
  id: string;
  subject: string;
  payload: unknown;
  request_id: string | null;
  trace_context: TraceCarrier | null;
}

export interface OutboxRelayOptions {
  sequelize: Sequelize;
  bus: EventBus;
  logger: Logger;
  metrics?: Metrics;
  batchSize?: number;
  /** How often the relay looks for rows written by other processes or left by a failure. */
  pollIntervalMs?: number;
  /** Published rows are kept this long (for inspection), then deleted. */
  retentionMs?: number;
}

/**
 * The transactional outbox. `add` writes an event in the caller's transaction; the relay
 * publishes committed rows in order. Rows are claimed with `FOR UPDATE SKIP LOCKED`, so
 * several replicas share the work; a crash between publish and mark republishes the same
 * message id, which JetStream drops.
 */
export class Outbox {
  private running = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retentionMs: number;
  private lastHousekeeping = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 200;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.retentionMs = options.retentionMs ?? 24 * 3_600_000;
  }

  /** Writes events in `transaction`; they are published only if it commits. */
  async add(transaction: Transaction, ...events: OutboxEvent[]): Promise<void> {
    if (events.length === 0) return;
    const values: unknown[] = [];
    const activeTrace = currentTraceCarrier();
    const rows = events.map((event, index) => {
      const traceContext = event.traceContext ?? activeTrace;
      values.push(
        event.id,
        event.subject,
        JSON.stringify(event.payload),
        event.requestId ?? null,
        traceContext ? JSON.stringify(traceContext) : null,
      );
      const base = index * 5;
      return `($${base + 1}, $${base + 2}, $${base + 3}::jsonb, $${base + 4}, $${base + 5}::jsonb)`;
    });
    await this.options.sequelize.query(`INSERT INTO outbox (id, subject, payload, request_id, trace_context) VALUES ${rows.join(", ")}`, {
      bind: values,
      transaction,
    });
    transaction.afterCommit(() => this.kick());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Publishes without waiting for the next poll; called after a commit that wrote events. */
  kick(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let published = 0;
      try {
        published = await this.relayBatch();
        failures = 0;
        await this.housekeeping();
      } catch (error) {
        failures += 1;
        this.options.logger.warn({ err: error, failures }, "outbox relay could not publish; retrying");
      }
      if (published === this.batchSize && failures === 0) continue;
      const delay = failures ? Math.min(this.pollIntervalMs * 2 ** failures, 10_000) : this.pollIntervalMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Publishes one batch of committed rows; returns how many were published. */
  async relayBatch(): Promise<number> {
    const { sequelize, metrics } = this.options;
    return sequelize.transaction(async (transaction) => {
      const rows = await sequelize.query<OutboxRow>(
        `SELECT seq, id, subject, payload, request_id, trace_context FROM outbox
         WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        { bind: [this.batchSize], type: QueryTypes.SELECT, transaction },
      );
      if (rows.length === 0) return 0;
      // Marking rows published need not wait for the disk: if a crash loses the mark, the rows are published again,
      // JetStream drops them by Nats-Msg-Id within its duplicate window and consumers are idempotent beyond it. So
      // the relay does not add a WAL flush per batch to the ones the requests wait for.
      await sequelize.query("SET LOCAL synchronous_commit = off", { transaction });
      // One connection keeps publishes in order even while several are in flight.
      await Promise.all(rows.map((row) => this.publish(row)));
      await sequelize.query("UPDATE outbox SET published_at = now() WHERE seq = ANY($1::bigint[])", {
        bind: [rows.map((row) => row.seq)],
        transaction,
      });
      for (const row of rows) metrics?.eventsPublished.inc({ type: row.subject.replace(/^docex\./, "") });
      return rows.length;
    });
  }

  /**
   * Publishes one row. An event written in a trace is published in a producer span of that trace, whose context
   * the message carries on to the consumers; one written outside a trace is published without a span.
   */
  private async publish(row: OutboxRow): Promise<void> {
    const options = { msgId: row.id, requestId: row.request_id ?? undefined };
    if (!row.trace_context) return this.options.bus.publish(row.subject, row.payload, options);
    const span = startSpan(`publish ${row.subject}`, {
      kind: SpanKind.PRODUCER,
      parent: contextOfCarrier(row.trace_context),
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "send",
        "messaging.destination.name": row.subject,
        "messaging.message.id": row.id,
      },
    });
    try {
      await this.options.bus.publish(row.subject, row.payload, {
        ...options,
        traceContext: currentTraceCarrier(trace.setSpan(ROOT_CONTEXT, span)),
      });
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  private async housekeeping(): Promise<void> {
    if (Date.now() - this.lastHousekeeping < 10_000) return;
    this.lastHousekeeping = Date.now();
    const { sequelize, metrics } = this.options;
    await sequelize.query("DELETE FROM outbox WHERE published_at < now() - ($1 || ' milliseconds')::interval", {
      bind: [String(this.retentionMs)],
    });
    const [pending] = await sequelize.query<{ count: string }>("SELECT count(*) FROM outbox WHERE published_at IS NULL", {
      type: QueryTypes.SELECT,
    });
    metrics?.outboxPending.set(Number(pending?.count ?? 0));
  }
}

/**
 * Records that `consumer` handled `eventId` inside `transaction`. Returns false when it was
 * handled before, so a redelivered event changes nothing.
 */
export async function claimEvent(sequelize: Sequelize, transaction: Transaction, consumer: string, eventId: string): Promise<boolean> {
  const inserted = await sequelize.query(
    "INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id",
    { bind: [consumer, eventId], transaction, type: QueryTypes.SELECT },
  );
  return inserted.length > 0;
}
