import { randomBytes } from "node:crypto";
import { createLogger, EventBus } from "@docex/kit";
import { testEventNamespace, testNatsUrl } from "@docex/testkit";

export interface RecordedEvent {
  id: string;
  type: string;
  occurred_at: string;
  organization_id: string | null;
  request_id?: string;
  actor_user_id?: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: event data is asserted field by field
  data: any;
}

/**
 * Durable consumers through the kit's EventBus, reading the stream as a real consumer would, in this test
 * process's event namespace (the services under test publish there too).
 */
export class EventRecorder {
  readonly events: RecordedEvent[] = [];

  private constructor(
    private readonly bus: EventBus,
    private readonly durables: string[],
  ) {}

  static async start(subjects: string[]): Promise<EventRecorder> {
    const bus = await EventBus.connect({
      url: testNatsUrl(),
      name: "learning-test-recorder",
      logger: createLogger("recorder", "silent"),
      namespace: testEventNamespace(),
    });
    const run = randomBytes(4).toString("hex");
    const durables = subjects.map((_, index) => `learning_test_${run}_${index}`);
    const recorder = new EventRecorder(bus, durables);
    for (const [index, subject] of subjects.entries()) {
      await bus.subscribe({
        durable: durables[index]!,
        subject,
        handler: async (payload) => {
          recorder.events.push(payload as RecordedEvent);
        },
      });
    }
    return recorder;
  }

  matching(predicate: (event: RecordedEvent) => boolean): RecordedEvent[] {
    return this.events.filter(predicate);
  }

  /** Waits until `count` events match, then a little longer, so that one too many would have arrived too. */
  async settle(predicate: (event: RecordedEvent) => boolean, count: number, timeoutMs = 10_000, quietMs = 300): Promise<RecordedEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.matching(predicate).length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} events, saw ${this.matching(predicate).length} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    return this.matching(predicate);
  }

  /** Publishes an event again under a new message id: what JetStream does when an ack was lost. */
  async redeliver(event: RecordedEvent): Promise<void> {
    await this.bus.publish(`docex.${event.type}`, event, { msgId: `${event.id}:again:${randomBytes(4).toString("hex")}` });
  }

  /** Publishes as another service's outbox relay would (the message id is the event id). */
  async publish(event: RecordedEvent): Promise<void> {
    await this.bus.publish(`docex.${event.type}`, event, { msgId: event.id });
  }

  async stop(): Promise<void> {
    const stream = this.bus.namespace.stream;
    // The consumers are this run's alone; left behind they would pile up on the shared NATS.
    for (const durable of this.durables) {
      await this.bus.connection.request(`$JS.API.CONSUMER.DELETE.${stream}.${durable}`, "", { timeout: 2_000 }).catch(() => undefined);
    }
    await this.bus.close().catch(() => undefined);
  }
}
