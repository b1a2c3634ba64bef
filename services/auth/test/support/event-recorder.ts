import { testNatsUrl } from "@docex/testkit";
import { type ConsumerMessages, DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";

export interface RecordedEvent {
  subject: string;
  msgId: string | undefined;
  raw: string;
  event: { id: string; type: string; data: Record<string, unknown>; organization_id: string | null; request_id?: string };
}

/** Where a service publishes: the kit's production stream, or the test process's own namespace when the config names one. */
export function eventNamespaceOf(config: object): { stream: string; subjectPrefix: string } {
  const named = config as { NATS_STREAM?: string; NATS_SUBJECT_PREFIX?: string };
  return { stream: named.NATS_STREAM ?? "DOCEX", subjectPrefix: named.NATS_SUBJECT_PREFIX ?? "docex" };
}

/**
 * Reads the auth events that reach the service's stream from `since` on, through an ordered
 * (self-cleaning) consumer. Start it after the service, which creates the stream.
 */
export class EventRecorder {
  readonly events: RecordedEvent[] = [];

  private constructor(
    private readonly connection: NatsConnection,
    private readonly messages: ConsumerMessages,
  ) {}

  static async start(config: object, since: Date): Promise<EventRecorder> {
    const { stream, subjectPrefix } = eventNamespaceOf(config);
    const connection = await connect({ servers: testNatsUrl() });
    const consumer = await jetstream(connection).consumers.get(stream, {
      filter_subjects: `${subjectPrefix}.auth.>`,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: since.toISOString(),
    });
    const messages = await consumer.consume();
    const recorder = new EventRecorder(connection, messages);
    (async () => {
      for await (const message of messages) {
        const raw = message.string();
        recorder.events.push({ subject: message.subject, msgId: message.headers?.get("Nats-Msg-Id"), raw, event: JSON.parse(raw) });
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
