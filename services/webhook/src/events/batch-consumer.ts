import { type EventBus, errorSummaryOf, isTransientFailure, type Logger, type Metrics } from "@docex/kit";
import { AckPolicy, type ConsumerMessages, DeliverPolicy, type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/transport-node";

const NANOS_PER_MS = 1_000_000;

/** One event of a batch, as the handler sees it. */
export interface ReceivedEvent {
  /** The decoded JSON, or undefined when the message was not JSON. */
  payload: unknown;
  msgId: string | undefined;
  requestId: string | undefined;
  deliveryCount: number;
}

export interface BatchConsumerOptions {
  /** Durable consumer name: replicas share it, so each event is handled by one of them. */
  durable: string;
  /** Canonical subject, e.g. `docex.document.status_changed`; the bus maps it to its namespace. */
  subject: string;
  /** Handles a batch as a whole: it resolves once all of it is durable, or throws and none of it counts. */
  handler: (events: ReceivedEvent[]) => Promise<void>;
  ackWaitMs: number;
  /** Events handed to one call of the handler at most. */
  maxBatch?: number;
  /** Deliveries of one event before it goes to the dead-letter stream. */
  maxDeliver?: number;
  /** The same while its handling fails only for transient reasons (the kit's `isTransientFailure`): an outage is waited out. */
  transientMaxDeliver?: number;
  /** Delay before redelivery after a failed attempt, by attempt number (the last one repeats). */
  retryDelaysMs?: number[];
}

/**
 * A durable JetStream consumer like the kit's `EventBus.subscribe` (explicit ack after the handler, bounded
 * redelivery with backoff, dead letters to `<stream>_DLQ` under `dlq.<durable>`), except that it hands the
 * handler every event that arrived meanwhile in one batch. The kit handles one event at a time, and an
 * event that costs one commit is then bounded by the commit latency (2–4 ms on this kind of machine, so a
 * few hundred events per second); here one commit covers a whole batch, while a lone event is still handled
 * the moment it arrives. A batch that fails is retried event by event, so one poisonous event cannot take
 * its neighbours to the dead-letter stream with it.
 */
export class BatchConsumer {
  private stopped = false;
  private messages: ConsumerMessages | undefined;
  private pump: Promise<void> | undefined;
  private readonly buffer: JsMsg[] = [];
  private working: Promise<void> | undefined;
  private readonly maxBatch: number;
  private readonly maxDeliver: number;
  private readonly transientMaxDeliver: number;
  private readonly retryDelaysMs: number[];

  constructor(
    private readonly bus: EventBus,
    private readonly options: BatchConsumerOptions,
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    this.maxDeliver = options.maxDeliver ?? 10;
    this.transientMaxDeliver = Math.max(options.transientMaxDeliver ?? 200, this.maxDeliver);
    this.retryDelaysMs = options.retryDelaysMs ?? [200, 1_000, 5_000, 15_000, 30_000];
  }

  async start(): Promise<void> {
    const jsm = await jetstreamManager(this.bus.connection, { timeout: 5_000 });
    const { stream } = this.bus.namespace;
    const config = {
      durable_name: this.options.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.bus.wireSubject(this.options.subject),
      max_deliver: this.transientMaxDeliver,
      ack_wait: this.options.ackWaitMs * NANOS_PER_MS,
      max_ack_pending: this.maxBatch * 4,
    };
    try {
      await jsm.consumers.add(stream, config);
    } catch {
      await jsm.consumers.update(stream, this.options.durable, {
        max_deliver: config.max_deliver,
        ack_wait: config.ack_wait,
        max_ack_pending: config.max_ack_pending,
      });
    }
    const js = jetstream(this.bus.connection, { timeout: 5_000 });
    const open = async () => {
      const consumer = await js.consumers.get(stream, this.options.durable);
      // Short-lived pull requests, as in the kit: a successor gets the messages of a consumer that died within seconds.
      this.messages = await consumer.consume({ max_messages: this.maxBatch, expires: 5_000 });
      return this.messages;
    };
    let current: ConsumerMessages | undefined = await open();
    this.pump = (async () => {
      while (!this.stopped) {
        try {
          current ??= await open();
          if (this.stopped) break;
          for await (const message of current) {
            this.buffer.push(message);
            void this.work();
          }
        } catch (error) {
          if (this.stopped) break;
          this.logger.warn({ err: error, durable: this.options.durable }, "consumer interrupted; resuming");
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        current = undefined;
      }
    })();
  }

  /** Stops taking events and lets the batch in hand finish; what is still buffered is redelivered later. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.pump;
    await this.working;
  }

  private work(): Promise<void> {
    this.working ??= (async () => {
      while (this.buffer.length > 0 && !this.stopped) {
        await this.handle(this.buffer.splice(0, this.maxBatch));
      }
    })().finally(() => {
      this.working = undefined;
    });
    return this.working;
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    try {
      await this.options.handler(batch.map(received));
      for (const message of batch) message.ack();
      this.count("ok", batch.length);
      return;
    } catch (error) {
      if (batch.length === 1) return this.failed(batch[0]!, error);
      this.logger.warn(
        { err: error, durable: this.options.durable, events: batch.length },
        "event batch failed; retrying its events one by one",
      );
    }
    for (const message of batch) {
      try {
        await this.options.handler([received(message)]);
        message.ack();
        this.count("ok", 1);
      } catch (error) {
        await this.failed(message, error);
      }
    }
  }

  private async failed(message: JsMsg, error: unknown): Promise<void> {
    const attempt = message.info.deliveryCount;
    if (attempt >= (isTransientFailure(error) ? this.transientMaxDeliver : this.maxDeliver)) {
      this.logger.error({ err: error, durable: this.options.durable, subject: message.subject }, "event dead-lettered");
      await this.deadLetter(message, error);
      message.term();
      this.count("dead_letter", 1);
      return;
    }
    this.logger.warn({ err: error, durable: this.options.durable, attempt }, "event handling failed; will retry");
    message.nak(this.retryDelaysMs[Math.min(attempt - 1, this.retryDelaysMs.length - 1)]);
    this.count("retry", 1);
  }

  private async deadLetter(message: JsMsg, error: unknown): Promise<void> {
    const headers = natsHeaders();
    headers.set("x-original-subject", this.options.subject);
    headers.set("x-error", errorSummaryOf(error).slice(0, 500));
    const msgId = message.headers?.get("Nats-Msg-Id");
    await jetstream(this.bus.connection)
      .publish(`${this.bus.deadLetterPrefix}.${this.options.durable}`, message.data, {
        headers,
        ...(msgId ? { msgID: `${this.options.durable}:${msgId}` } : {}),
      })
      .catch((publishError: unknown) => this.logger.error({ err: publishError }, "dead-letter publish failed"));
  }

  private count(outcome: string, count: number): void {
    this.metrics?.eventsConsumed.inc({ consumer: this.options.durable, outcome }, count);
  }
}

function received(message: JsMsg): ReceivedEvent {
  let payload: unknown;
  try {
    payload = message.json();
  } catch {
    payload = undefined;
  }
  return {
    payload,
    msgId: message.headers?.get("Nats-Msg-Id") || undefined,
    requestId: message.headers?.get("x-request-id") || undefined,
    deliveryCount: message.info.deliveryCount,
  };
}
