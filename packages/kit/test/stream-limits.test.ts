import { randomBytes, randomUUID } from "node:crypto";
import { DiscardPolicy, jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { expect } from "chai";
import { type DeliveredMessage, EventBus, type EventNamespace } from "../src/bus/event-bus.js";
import { kitMigrations, Outbox } from "../src/bus/outbox.js";
import { connectDatabase, runMigrations } from "../src/db/database.js";
import type { Sql } from "../src/db/sql.js";
import { Metrics } from "../src/metrics.js";
import { NatsServerProcess } from "./nats-server-process.js";
import { dropDatabase, eventually, natsUrl, serverUrl, silentLogger, uniqueName } from "./support.js";

const HOUR_MS = 3_600_000;
const NANOS_PER_MS = 1_000_000;
// Small sizes: a file stream reserves its max_bytes on the shared NATS, whose storage every test run shares.
const LIMITS = {
  events: { maxAgeMs: 2 * HOUR_MS, maxBytes: 64 * 1024 },
  deadLetters: { maxAgeMs: 5 * HOUR_MS, maxBytes: 32 * 1024 },
};

function testNamespace(label: string): EventNamespace {
  const runId = randomBytes(4).toString("hex");
  return { stream: `DOCEX_KIT_${label.toUpperCase()}_${runId.toUpperCase()}`, subjectPrefix: `docex_kit_${label}_${runId}` };
}

async function deleteStreams(url: string, ...namespaces: EventNamespace[]): Promise<void> {
  const connection = await connect({ servers: url });
  const jsm = await jetstreamManager(connection);
  for (const { stream } of namespaces) for (const name of [stream, `${stream}_DLQ`]) await jsm.streams.delete(name).catch(() => undefined);
  await connection.close();
}

describe("stream limits and an outbox that never blocks or goes quiet (real Postgres and NATS)", () => {
  describe("JetStream stream limits", () => {
    const fresh = testNamespace("fresh");
    const existing = testNamespace("old");
    after(() => deleteStreams(natsUrl, fresh, existing));

    async function limitsOf(bus: EventBus) {
      const jsm = await jetstreamManager(bus.connection);
      const [events, deadLetters] = await Promise.all([bus.namespace.stream, bus.deadLetterStream].map((name) => jsm.streams.info(name)));
      const limits = ({ config }: NonNullable<typeof events>) => ({
        max_age: config.max_age / NANOS_PER_MS,
        max_bytes: config.max_bytes,
        discard: config.discard,
      });
      return { events: limits(events!), deadLetters: limits(deadLetters!) };
    }

    const expected = {
      events: { max_age: LIMITS.events.maxAgeMs, max_bytes: LIMITS.events.maxBytes, discard: DiscardPolicy.New },
      deadLetters: { max_age: LIMITS.deadLetters.maxAgeMs, max_bytes: LIMITS.deadLetters.maxBytes, discard: DiscardPolicy.New },
    };

    it("creates a new stream and its dead-letter stream with the configured max_age and max_bytes, refusing rather than dropping when full", async () => {
      const bus = await EventBus.connect({
        url: natsUrl,
        name: "kit-test-limits",
        logger: silentLogger,
        namespace: fresh,
        streamLimits: LIMITS,
      });
      try {
        expect(await limitsOf(bus)).to.deep.equal(expected);
      } finally {
        await bus.close();
      }
    });

    it("brings an existing stream without limits (as an older release created it) to the configured ones at the next connect", async () => {
      const connection = await connect({ servers: natsUrl });
      const jsm = await jetstreamManager(connection);
      for (const [name, subject] of [
        [existing.stream, `${existing.subjectPrefix}.>`],
        [`${existing.stream}_DLQ`, `${existing.subjectPrefix}_dlq.>`],
      ] as const)
        await jsm.streams.add({ name, subjects: [subject], storage: StorageType.File, duplicate_window: 10 * 60_000 * NANOS_PER_MS });
      await connection.close();

      const bus = await EventBus.connect({
        url: natsUrl,
        name: "kit-test-limits",
        logger: silentLogger,
        namespace: existing,
        streamLimits: LIMITS,
      });
      try {
        expect(await limitsOf(bus)).to.deep.equal(expected);
      } finally {
        await bus.close();
      }
      // A later change of the settings reaches the stream too.
      const longer = { ...LIMITS, events: { maxAgeMs: 3 * HOUR_MS, maxBytes: 48 * 1024 } };
      const again = await EventBus.connect({
        url: natsUrl,
        name: "kit-test-limits",
        logger: silentLogger,
        namespace: existing,
        streamLimits: longer,
      });
      try {
        expect((await limitsOf(again)).events).to.deep.equal({ max_age: 3 * HOUR_MS, max_bytes: 48 * 1024, discard: DiscardPolicy.New });
      } finally {
        await again.close();
      }
    });

    it("a full stream refuses the next event and keeps the ones it holds, and the stream gauges show it full", async () => {
      const metrics = new Metrics("kit-test", { defaultMetrics: false });
      const bus = await EventBus.connect({
        url: natsUrl,
        name: "kit-test-limits",
        logger: silentLogger,
        namespace: fresh,
        streamLimits: LIMITS,
        metrics,
      });
      try {
        const payload = { filler: "x".repeat(8 * 1024) };
        let refusal: Error | undefined;
        for (let index = 0; index < 20 && !refusal; index++) {
          await bus.publish("docex.test.filled", payload, { msgId: randomUUID() }).catch((error: Error) => {
            refusal = error;
          });
        }
        expect(refusal?.message, "the publish that did not fit").to.match(/maximum bytes/i);
        const jsm = await jetstreamManager(bus.connection);
        const { state } = await jsm.streams.info(fresh.stream);
        expect(state.first_seq, "the first event is still there").to.equal(1);
        expect(state.bytes).to.be.at.most(LIMITS.events.maxBytes);
        const exposition = await metrics.registry.metrics();
        expect(exposition).to.include(`event_stream_bytes{stream="${fresh.stream}",service="kit-test"} ${state.bytes}`);
        expect(exposition).to.include(`event_stream_max_bytes{stream="${fresh.stream}",service="kit-test"} ${LIMITS.events.maxBytes}`);
        expect(exposition).to.include(
          `event_stream_max_bytes{stream="${fresh.stream}_DLQ",service="kit-test"} ${LIMITS.deadLetters.maxBytes}`,
        );
      } finally {
        await bus.close();
      }
    });
  });

  describe("dead letters", () => {
    const namespace = testNamespace("dlq");
    after(() => deleteStreams(natsUrl, namespace));

    it("a poison event the dead-letter stream has no room for stays on the stream and keeps being retried, not dropped", async () => {
      const tiny = { ...LIMITS, deadLetters: { maxAgeMs: HOUR_MS, maxBytes: 1024 } };
      const metrics = new Metrics("kit-test", { defaultMetrics: false });
      const bus = await EventBus.connect({
        url: natsUrl,
        name: "kit-test-dlq",
        logger: silentLogger,
        namespace,
        streamLimits: tiny,
        metrics,
      });
      const durable = `kit_test_${randomBytes(4).toString("hex")}`;
      let attempts = 0;
      try {
        await bus.subscribe({
          durable,
          subject: "docex.test.poison",
          maxDeliver: 2,
          retryDelaysMs: [50],
          handler: async () => {
            attempts += 1;
            throw new Error("poison");
          },
        });
        await bus.publish("docex.test.poison", { filler: "x".repeat(4 * 1024) }, { msgId: randomUUID() });
        await eventually(() => (attempts >= 5 ? true : undefined), 20_000);
        const jsm = await jetstreamManager(bus.connection);
        expect((await jsm.streams.info(bus.deadLetterStream)).state.messages, "dead letters").to.equal(0);
        expect((await jsm.streams.info(namespace.stream)).state.messages, "the event is still on the stream").to.equal(1);
        const consumed = await metrics.eventsConsumed.get();
        const deadLettered = consumed.values.find((value) => value.labels.consumer === durable && value.labels.outcome === "dead_letter");
        expect(deadLettered?.value, "dead_letter, counted from 0").to.equal(0);
      } finally {
        await bus.close();
      }
    });
  });

  describe("the outbox relay", () => {
    const database = uniqueName("outbox_limits");
    const namespace = testNamespace("relay");
    let sql: Sql;
    let bus: EventBus;

    before(async () => {
      sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
      await runMigrations(sql, kitMigrations, silentLogger);
      bus = await EventBus.connect({ url: natsUrl, name: "kit-test-relay", logger: silentLogger, namespace });
    });

    after(async () => {
      await bus?.close();
      await deleteStreams(natsUrl, namespace);
      await sql?.close();
      await dropDatabase(database);
    });

    it("an event NATS refuses (too large for max_payload, or on a subject no stream takes) does not block the events behind it", async () => {
      const subject = `docex.test_${randomBytes(4).toString("hex")}.happened`;
      const received: DeliveredMessage[] = [];
      const consumerBus = await EventBus.connect({ url: natsUrl, name: "kit-test-relay-consumer", logger: silentLogger, namespace });
      await consumerBus.subscribe({
        durable: `kit_test_${randomBytes(4).toString("hex")}`,
        subject,
        handler: async (_payload, message) => {
          received.push(message);
        },
      });
      const metrics = new Metrics("kit-test", { defaultMetrics: false });
      const outbox = new Outbox({ sql, bus, logger: silentLogger, metrics, pollIntervalMs: 50, gaugeIntervalMs: 50 });
      const tooLarge = { id: randomUUID(), subject, payload: { filler: "x".repeat(bus.connection.info?.max_payload ?? 1_048_576) } };
      const nowhere = { id: randomUUID(), subject: `nowhere_${randomBytes(4).toString("hex")}.happened`, payload: {} };
      const behind = [randomUUID(), randomUUID(), randomUUID()].map((id) => ({ id, subject, payload: { id } }));
      try {
        // Alone first: the oversized event is recognised on its own and set aside.
        await sql.transaction((transaction) => outbox.add(transaction, tooLarge));
        outbox.start();
        await eventually(() => attemptsOf(tooLarge.id).then((attempts) => (attempts > 0 ? true : undefined)));
        await sql.transaction((transaction) => outbox.add(transaction, nowhere, ...behind));
        await eventually(() => (received.length >= behind.length ? true : undefined), 20_000);
        expect(received.map((message) => message.msgId)).to.deep.equal(behind.map((event) => event.id));

        const refused = await sql.one<{ id: string; attempts: number; last_error: string; waits: boolean }>(
          "SELECT id, attempts, last_error, next_attempt_at > now() AS waits FROM outbox WHERE id = $1 AND published_at IS NULL",
          [tooLarge.id],
        );
        expect(refused?.last_error).to.match(/max_payload/);
        // Its refusal is recorded after the relay's round, which may end after the events behind it arrived.
        expect(
          await eventually(async () => ((await attemptsOf(nowhere.id)) > 0 ? true : undefined), 10_000).catch(() => false),
          "the event no stream takes is set aside too",
        ).to.equal(true);
        await eventually(async () => ((await gauge(metrics, "outbox_refused_events")) === 2 ? true : undefined));
        expect(await gauge(metrics, "outbox_pending_events"), "both still wait, nothing is dropped").to.equal(2);
      } finally {
        await outbox.stop();
        await consumerBus.close();
        await sql.run("DELETE FROM outbox");
      }
    });

    async function attemptsOf(id: string): Promise<number> {
      const row = await sql.one<{ attempts: number }>("SELECT attempts FROM outbox WHERE id = $1", [id]);
      return row?.attempts ?? 0;
    }

    it("outbox_pending_events rises while NATS is unreachable, and falls once it is back and has every event", async () => {
      const nats = await NatsServerProcess.start();
      const ownNamespace = testNamespace("away");
      const metrics = new Metrics("kit-test", { defaultMetrics: false });
      const awayBus = await EventBus.connect({ url: nats.url, name: "kit-test-away", logger: silentLogger, namespace: ownNamespace });
      const outbox = new Outbox({ sql, bus: awayBus, logger: silentLogger, metrics, pollIntervalMs: 50, gaugeIntervalMs: 100 });
      const subject = `docex.test_${randomBytes(4).toString("hex")}.happened`;
      const events = [randomUUID(), randomUUID(), randomUUID()].map((id) => ({ id, subject, payload: { id } }));
      try {
        outbox.start();
        await nats.stop();
        await sql.transaction((transaction) => outbox.add(transaction, ...events));
        await eventually(async () => ((await gauge(metrics, "outbox_pending_events")) === events.length ? true : undefined), 15_000);

        await nats.start();
        await eventually(async () => ((await gauge(metrics, "outbox_pending_events")) === 0 ? true : undefined), 30_000);
        const jsm = await jetstreamManager(awayBus.connection);
        expect((await jsm.streams.info(ownNamespace.stream)).state.messages, "every event reached the stream").to.equal(events.length);
      } finally {
        await outbox.stop();
        await awayBus.close().catch(() => undefined);
        await nats.dispose();
        await sql.run("DELETE FROM outbox");
      }
    });
  });
});

async function gauge(metrics: Metrics, name: string): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  return (await metric?.get())?.values[0]?.value;
}
