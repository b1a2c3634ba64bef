import { testEventNamespace, testNatsUrl } from "@docex/testkit";
import { type ConsumerMessages, DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";

export interface RecordedEvent {
  subject: string;
  msgId: string | undefined;
  event: {
    id: string;
    type: string;
    data: Record<string, unknown>;
    organization_id: string | null;
    request_id?: string;
    actor_user_id?: string | null;
  };
}

/** Reads what reaches this test run's JetStream stream from now on, through an ordered (self-cleaning) consumer. */
export class EventRecorder {
  readonly events: RecordedEvent[] = [];

  private constructor(
    private readonly connection: NatsConnection,
    private readonly messages: ConsumerMessages,
  ) {}

  /** `type` as in the code (`register.updated`); the namespace of the test run is applied here. */
  static async start(typePattern = "register.>"): Promise<EventRecorder> {
    const { stream, subjectPrefix } = testEventNamespace();
    const connection = await connect({ servers: testNatsUrl() });
    const consumer = await jetstream(connection).consumers.get(stream, {
      filter_subjects: `${subjectPrefix}.${typePattern}`,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date().toISOString(),
    });
    const messages = await consumer.consume();
    const recorder = new EventRecorder(connection, messages);
    (async () => {
      for await (const message of messages) {
        recorder.events.push({ subject: message.subject, msgId: message.headers?.get("Nats-Msg-Id"), event: JSON.parse(message.string()) });
      }
    })().catch(() => undefined);
    return recorder;
  }

  async waitFor(predicate: (event: RecordedEvent) => boolean, timeoutMs = 10_000): Promise<RecordedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms (${this.events.length} seen)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async stop(): Promise<void> {
    await this.messages.close();
    await this.connection.close();
  }
}
