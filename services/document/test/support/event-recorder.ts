import { randomBytes } from "node:crypto";
import { createLogger, EventBus } from "@docex/kit";
import { testEventNamespace, testNatsUrl } from "@docex/testkit";

export interface RecordedEvent {
  subject: string;
  msgId: string | undefined;
  event: { id: string; type: string; organization_id: string | null; request_id?: string; data: Record<string, unknown> };
}

/**
 * Durable consumers through the kit's EventBus, as a real consumer would read the stream, in this test
 * process's event namespace (the services under test publish there too). Suites of one process share the
 * namespace, so tests look only at events of the organizations and documents they created.
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
      name: "document-test-recorder",
      logger: createLogger("recorder", "silent"),
      namespace: testEventNamespace(),
    });
    const run = randomBytes(4).toString("hex");
    const durables = subjects.map((_, index) => `document_test_${run}_${index}`);
    const recorder = new EventRecorder(bus, durables);
    for (const [index, subject] of subjects.entries()) {
      await bus.subscribe({
        durable: durables[index]!,
        subject,
        handler: async (payload, message) => {
          recorder.events.push({ subject: message.subject, msgId: message.msgId, event: payload as RecordedEvent["event"] });
        },
      });
    }
    return recorder;
  }

  of(organizationId: string, type?: string): RecordedEvent[] {
    return this.events.filter((recorded) => recorded.event.organization_id === organizationId && (!type || recorded.event.type === type));
  }

  /** Waits until `count` events match, then a little longer, so that a duplicate would have arrived too. */
  async settle(
    predicate: (recorded: RecordedEvent) => boolean,
    count: number,
    timeoutMs = 10_000,
    quietMs = 400,
  ): Promise<RecordedEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.filter(predicate).length < count) {
      if (Date.now() > deadline)
        throw new Error(`expected ${count} events, saw ${this.events.filter(predicate).length} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    return this.events.filter(predicate);
  }

  /** Publishes as another service's outbox relay would (the message id is the event id). */
  async publish(event: { id: string; type: string }): Promise<void> {
    await this.bus.publish(`docex.${event.type}`, event, { msgId: event.id });
  }

  async deleteConsumer(durable: string): Promise<void> {
    const stream = this.bus.namespace.stream;
    await this.bus.connection.request(`$JS.API.CONSUMER.DELETE.${stream}.${durable}`, "", { timeout: 2_000 }).catch(() => undefined);
  }

  async stop(): Promise<void> {
    // The consumers are this run's alone; left behind they would pile up on the shared NATS.
    for (const durable of this.durables) await this.deleteConsumer(durable);
    await this.bus.close().catch(() => undefined);
  }
}
