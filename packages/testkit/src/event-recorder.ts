import { randomBytes } from "node:crypto";
import { EventBus, type EventNamespace } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import { type ConsumerMessages, DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { testEventNamespace, testNatsUrl } from "./infra.js";

/** An event as the services publish it, read by a test field by field. */
export interface TestEvent {
  id: string;
  type: string;
  occurred_at?: string;
  organization_id: string | null;
  request_id?: string;
  actor_user_id?: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: event data is asserted field by field
  data: any;
}

export interface RecordedEvent {
  /** The canonical subject (`docex.document.extracted`), whatever the namespace on the wire. */
  subject: string;
  msgId: string | undefined;
  /** The message as sent, for tests that check what it must not contain. */
  raw: string;
  event: TestEvent;
}

export interface EventRecorderOptions {
  /** Canonical subjects to record (`docex.document.>`). */
  subjects: string[];
  /**
   * Read from this moment on through one ordered consumer, which removes itself: for a stream that exists
   * already (start the recorder after the service that creates it). Without it, one durable consumer per
   * subject reads the stream from its start as a real consumer would, and creates the stream if need be;
   * stop() deletes them, or they would pile up on the shared NATS.
   */
  since?: Date;
  /** By default this test process's namespace; a service under test may publish elsewhere. */
  namespace?: EventNamespace;
  /** Names the durable consumers (`<label>_test_<run>_<n>`), so that a leftover one says whose it is. */
  label?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records the events that reach a JetStream stream, and publishes as another service's outbox relay would.
 * Suites of one test process share its namespace, so tests look only at events of what they created.
 */
export class EventRecorder {
  readonly events: RecordedEvent[] = [];
  private readonly durables: string[] = [];
  private ordered: ConsumerMessages | undefined;

  private constructor(private readonly bus: EventBus) {}

  static async start(options: EventRecorderOptions): Promise<EventRecorder> {
    const label = options.label ?? "events";
    const bus = await EventBus.connect({
      url: testNatsUrl(),
      name: `${label}-test-recorder`,
      logger: createLogger("recorder", "silent"),
      namespace: options.namespace ?? testEventNamespace(),
    });
    const recorder = new EventRecorder(bus);
    try {
      if (options.since) await recorder.readSince(options.since, options.subjects);
      else await recorder.readDurably(options.subjects, label);
    } catch (error) {
      await recorder.stop();
      throw error;
    }
    return recorder;
  }

  private async readDurably(subjects: string[], label: string): Promise<void> {
    const run = randomBytes(4).toString("hex");
    for (const [index, subject] of subjects.entries()) {
      const durable = `${label}_test_${run}_${index}`;
      this.durables.push(durable);
      await this.bus.subscribe({
        durable,
        subject,
        handler: async (payload, message) => {
          this.events.push({ subject: message.subject, msgId: message.msgId, raw: JSON.stringify(payload), event: payload as TestEvent });
        },
      });
    }
  }

  private async readSince(since: Date, subjects: string[]): Promise<void> {
    const consumer = await jetstream(this.bus.connection).consumers.get(this.bus.namespace.stream, {
      // One subject as a string: a list needs NATS 2.10, and the machine's server may be older.
      filter_subjects:
        subjects.length === 1 ? this.bus.wireSubject(subjects[0]!) : subjects.map((subject) => this.bus.wireSubject(subject)),
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: since.toISOString(),
    });
    const messages = await consumer.consume();
    this.ordered = messages;
    const prefix = this.bus.namespace.subjectPrefix;
    (async () => {
      for await (const message of messages) {
        const raw = message.string();
        const subject = message.subject.startsWith(`${prefix}.`) ? `docex${message.subject.slice(prefix.length)}` : message.subject;
        this.events.push({ subject, msgId: message.headers?.get("Nats-Msg-Id") || undefined, raw, event: JSON.parse(raw) });
      }
    })().catch(() => undefined);
  }

  matching(predicate: (recorded: RecordedEvent) => boolean): RecordedEvent[] {
    return this.events.filter(predicate);
  }

  /** The events of one type (and matching `predicate`), as published. */
  ofType(type: string, predicate: (event: TestEvent) => boolean = () => true): TestEvent[] {
    return this.events.map((recorded) => recorded.event).filter((event) => event.type === type && predicate(event));
  }

  async waitFor(predicate: (recorded: RecordedEvent) => boolean, timeoutMs = 10_000): Promise<RecordedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms (${this.events.length} seen)`);
      await sleep(25);
    }
  }

  /** Waits until `count` events match, then `quietMs` longer, so that one too many (a duplicate) would have arrived too. */
  async settle(
    predicate: (recorded: RecordedEvent) => boolean,
    count: number,
    timeoutMs = 10_000,
    quietMs = 400,
  ): Promise<RecordedEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.matching(predicate).length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} events, saw ${this.matching(predicate).length} within ${timeoutMs} ms`);
      await sleep(25);
    }
    await sleep(quietMs);
    return this.matching(predicate);
  }

  /** Publishes as another service's outbox relay would; a `msgId` other than the event id makes JetStream deliver a copy again. */
  async publish<E extends { id: string; type: string }>(event: E, msgId = event.id): Promise<void> {
    await this.bus.publish(`docex.${event.type}`, event, { msgId });
  }

  /** Publishes an event again under a new message id: what JetStream does when an ack was lost. */
  async redeliver<E extends { id: string; type: string }>(event: E): Promise<void> {
    await this.publish(event, `${event.id}:again:${randomBytes(4).toString("hex")}`);
  }

  async stop(): Promise<void> {
    await this.ordered?.close();
    const stream = this.bus.namespace.stream;
    for (const durable of this.durables) {
      await this.bus.connection.request(`$JS.API.CONSUMER.DELETE.${stream}.${durable}`, "", { timeout: 2_000 }).catch(() => undefined);
    }
    await this.bus.close().catch(() => undefined);
  }
}
