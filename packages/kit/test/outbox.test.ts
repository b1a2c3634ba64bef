import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { expect } from "chai";
import { type DeliveredMessage, EventBus } from "../src/bus/event-bus.js";
import { kitMigrations, Outbox } from "../src/bus/outbox.js";
import { connectDatabase, runMigrations } from "../src/db/database.js";
import type { Sql } from "../src/db/sql.js";
import { UpstreamError } from "../src/errors.js";
import { dropDatabase, eventually, natsUrl, serverUrl, silentLogger, uniqueName } from "./support.js";

const run = promisify(execFile);

describe("outbox and JetStream bus (real Postgres and NATS)", () => {
  const database = uniqueName("outbox");
  // A stream of this run only; removed at the end.
  const runId = randomBytes(4).toString("hex");
  const namespace = { stream: `DOCEX_KIT_${runId.toUpperCase()}`, subjectPrefix: `docex_kit_${runId}` };
  // A subject of each test only, so other tests' and runs' events never interfere.
  let subject = "";
  beforeEach(() => {
    subject = `docex.test_${randomBytes(4).toString("hex")}.happened`;
  });
  let sql: Sql;
  let bus: EventBus;

  before(async () => {
    sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    await runMigrations(sql, kitMigrations, silentLogger);
    bus = await EventBus.connect({ url: natsUrl, name: "kit-test", logger: silentLogger, namespace });
  });

  after(async () => {
    const jsm = await jetstreamManager(bus.connection);
    for (const stream of [namespace.stream, bus.deadLetterStream]) await jsm.streams.delete(stream).catch(() => undefined);
    await bus.close();
    await sql.close();
    await dropDatabase(database);
  });

  async function collect(durable: string, subjectFilter = subject) {
    const received: Array<{ payload: unknown; message: DeliveredMessage }> = [];
    const consumerBus = await EventBus.connect({ url: natsUrl, name: durable, logger: silentLogger, namespace });
    await consumerBus.subscribe({
      durable,
      subject: subjectFilter,
      handler: async (payload, message) => {
        received.push({ payload, message });
      },
    });
    return { received, close: () => consumerBus.close() };
  }

  it("never publishes an event whose transaction rolled back, and publishes a committed one once", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const consumer = await collect(durable);
    const outbox = new Outbox({ sql, bus, logger: silentLogger, pollIntervalMs: 50 });
    outbox.start();
    try {
      const rolledBack = randomUUID();
      const committed = randomUUID();
      await sql
        .transaction(async (transaction) => {
          await outbox.add(transaction, { id: rolledBack, subject, payload: { n: "rolled back" } });
          throw new Error("abort");
        })
        .catch(() => undefined);
      await sql.transaction((transaction) => outbox.add(transaction, { id: committed, subject, payload: { n: "committed" } }));
      await eventually(() => (consumer.received.length >= 1 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(consumer.received.map((event) => event.message.msgId)).to.deep.equal([committed]);
      expect(consumer.received[0]?.payload).to.deep.equal({ n: "committed" });
    } finally {
      await outbox.stop();
      await consumer.close();
    }
  });

  it("publishes a committed event exactly once even when the relay died between publishing and marking it", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const consumer = await collect(durable);
    const eventId = randomUUID();
    const outbox = new Outbox({ sql, bus, logger: silentLogger, pollIntervalMs: 50 });
    await sql.transaction((transaction) => outbox.add(transaction, { id: eventId, subject, payload: { n: 1 } }));
    // The relay that died: it published the row but never marked it published.
    await bus.publish(subject, { n: 1 }, { msgId: eventId });
    outbox.start();
    try {
      await eventually(async () => {
        const rows = await sql.rows("SELECT 1 FROM outbox WHERE id = $1 AND published_at IS NOT NULL", [eventId]);
        return rows.length ? true : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(consumer.received.filter((event) => event.message.msgId === eventId)).to.have.length(1);
    } finally {
      await outbox.stop();
      await consumer.close();
    }
  });

  it("publishes at once an event committed while the relay was busy with a batch, not at its next poll", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const consumer = await collect(durable);
    // The first publish takes a while, so that the second commit (and its kick) comes while that batch is under way.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let publishes = 0;
    const slowBus = {
      publish: async (...args: Parameters<EventBus["publish"]>) => {
        if (++publishes === 1) await held;
        return bus.publish(...args);
      },
    } as unknown as EventBus;
    // Whatever earlier tests left unpublished goes first, so that the relay's first batch holds only `first`.
    const flush = new Outbox({ sql, bus, logger: silentLogger });
    while ((await flush.relayBatch()) > 0);
    // Polls are an hour apart: only kicks can make the relay publish within this test.
    const outbox = new Outbox({ sql, bus: slowBus, logger: silentLogger, pollIntervalMs: 3_600_000 });
    const commit = (id: string) => sql.transaction(async (transaction) => outbox.add(transaction, { id, subject, payload: { id } }));
    const [first, second] = [randomUUID(), randomUUID()];
    outbox.start();
    try {
      await commit(first);
      await eventually(() => (publishes === 1 ? true : undefined));
      await commit(second);
      release();
      await eventually(() => (consumer.received.length >= 2 ? true : undefined), 5_000);
      expect(consumer.received.map(({ payload }) => (payload as { id: string }).id)).to.deep.equal([first, second]);
    } finally {
      release();
      await outbox.stop();
      await consumer.close();
    }
  });

  it("reads its batch by walking the index of unpublished rows, which marks the published ones dead there (a bitmap scan visits them all on every poll)", async () => {
    // A database of this test only, so that the index holds exactly the rows below.
    const own = uniqueName("outbox_poll");
    const db = await connectDatabase({ serverUrl, database: own, logger: silentLogger });
    try {
      await runMigrations(db, kitMigrations, silentLogger);
      const outbox = new Outbox({ sql: db, bus, logger: silentLogger, batchSize: 500 });
      await db.transaction(async (transaction) => {
        const events = Array.from({ length: 300 }, () => ({ id: randomUUID(), subject, payload: {} }));
        await outbox.add(transaction, ...events);
      });
      expect(await outbox.relayBatch()).to.equal(300);
      await db.run("CREATE EXTENSION IF NOT EXISTS pageinspect");
      const entries = () =>
        db.one<{ total: number; dead: number }>(
          "SELECT count(*)::int AS total, count(*) FILTER (WHERE dead)::int AS dead FROM bt_page_items('outbox_unpublished', 1)",
        );
      // The published rows' old versions are still in outbox_unpublished; the next polls walk over them. An entry is
      // marked dead once Postgres may take its row for dead: the marks were committed without waiting for the WAL
      // flush, so that can take a moment on a busy server. A bitmap scan never marks them, however long it polls.
      let seen = await entries();
      for (let poll = 0; poll < 50 && seen?.dead !== 300; poll++) {
        expect(await outbox.relayBatch()).to.equal(0);
        seen = await entries();
        if (seen?.dead !== 300) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen).to.deep.equal({ total: 300, dead: 300 });
    } finally {
      await db.close();
      await dropDatabase(own);
    }
  });

  it("publishes in commit order and keeps order across batches", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const consumer = await collect(durable);
    const outbox = new Outbox({ sql, bus, logger: silentLogger, batchSize: 7, pollIntervalMs: 50 });
    const ids = Array.from({ length: 30 }, () => randomUUID());
    for (const [index, id] of ids.entries()) {
      await sql.transaction((transaction) => outbox.add(transaction, { id, subject, payload: { index } }));
    }
    outbox.start();
    try {
      await eventually(() => (consumer.received.length >= ids.length ? true : undefined));
      expect(consumer.received.map((event) => event.message.msgId)).to.deep.equal(ids);
    } finally {
      await outbox.stop();
      await consumer.close();
    }
  });

  it("delivers to a durable consumer what was published while it was down", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const first = await collect(durable);
    await first.close();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await bus.publish(subject, { id }, { msgId: id });
    const second = await collect(durable);
    try {
      await eventually(() => (second.received.length >= ids.length ? true : undefined));
      expect(second.received.map((event) => event.message.msgId)).to.deep.equal(ids);
    } finally {
      await second.close();
    }
  });

  it("keeps an outbox row unpublished while NATS refuses it, and publishes it once NATS takes it", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const consumer = await collect(durable);
    let refusing = true;
    const flakyBus = new Proxy(bus, {
      get(target, property, receiver) {
        if (property === "publish") {
          return (...args: Parameters<EventBus["publish"]>) =>
            refusing ? Promise.reject(new Error("NATS unavailable")) : target.publish(...args);
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const outbox = new Outbox({ sql, bus: flakyBus, logger: silentLogger, pollIntervalMs: 50 });
    const eventId = randomUUID();
    await sql.transaction((transaction) => outbox.add(transaction, { id: eventId, subject, payload: {} }));
    outbox.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 400));
      const pending = await sql.rows("SELECT 1 FROM outbox WHERE id = $1 AND published_at IS NULL", [eventId]);
      expect(pending).to.have.length(1);
      refusing = false;
      outbox.kick();
      await eventually(() => (consumer.received.some((event) => event.message.msgId === eventId) ? true : undefined));
    } finally {
      await outbox.stop();
      await consumer.close();
    }
  });

  it("retries a failing handler, dead-letters the event after the last delivery, and replays it on demand", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const failingSubject = `${subject}.failing`;
    const consumerBus = await EventBus.connect({ url: natsUrl, name: durable, logger: silentLogger, namespace });
    let attempts = 0;
    let broken = true;
    const handled: unknown[] = [];
    await consumerBus.subscribe({
      durable,
      subject: failingSubject,
      maxDeliver: 3,
      retryDelaysMs: [20],
      handler: async (payload) => {
        attempts += 1;
        if (broken) throw new Error("handler broken");
        handled.push(payload);
      },
    });
    const eventId = randomUUID();
    try {
      await bus.publish(failingSubject, { doomed: true }, { msgId: eventId });
      await eventually(() => (attempts >= 3 ? true : undefined));
      const jsm = await jetstreamManager(bus.connection);
      const dead = await eventually(async () => {
        try {
          return await jsm.streams.getMessage(bus.deadLetterStream, { last_by_subj: `${bus.deadLetterPrefix}.${durable}` });
        } catch {
          return undefined;
        }
      });
      expect(dead!.json()).to.deep.equal({ doomed: true });
      expect(dead!.header.get("x-original-subject")).to.equal(failingSubject);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(attempts).to.equal(3);

      // After the outage: replayed, handled once more, and gone from the dead-letter stream.
      broken = false;
      const replayed = await bus.replayDeadLetters(durable);
      expect(replayed).to.deep.equal([{ durable, subject: failingSubject, msgId: eventId }]);
      await eventually(() => (handled.length === 1 ? true : undefined));
      expect(handled).to.deep.equal([{ doomed: true }]);
      const left = await jsm.streams
        .getMessage(bus.deadLetterStream, { last_by_subj: `${bus.deadLetterPrefix}.${durable}` })
        .catch(() => null);
      expect(left).to.equal(null);
      expect(await bus.replayDeadLetters(durable)).to.deep.equal([]);

      // The operator's command does the same, from any service's image.
      broken = true;
      const second = randomUUID();
      await bus.publish(failingSubject, { doomed: "again" }, { msgId: second });
      await eventually(async () => {
        const found = await jsm.streams
          .getMessage(bus.deadLetterStream, { last_by_subj: `${bus.deadLetterPrefix}.${durable}` })
          .catch(() => null);
        return found ? true : undefined;
      });
      broken = false;
      const command = fileURLToPath(new URL("../dist/bus/replay-dead-letters.js", import.meta.url));
      const { stdout } = await run(process.execPath, [command, durable], {
        env: {
          ...process.env,
          NATS_URL: natsUrl,
          NATS_STREAM: namespace.stream,
          NATS_SUBJECT_PREFIX: namespace.subjectPrefix,
          LOG_LEVEL: "silent",
        },
        timeout: 30_000,
      });
      expect(stdout).to.include(`${durable}\t${failingSubject}\t${second}`).and.include("replayed 1 dead-lettered event of");
      await eventually(() => (handled.length === 2 ? true : undefined));
    } finally {
      await consumerBus.close();
    }
  });

  it("waits out a dependency that is unavailable instead of dead-lettering at the poison limit", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const waitingSubject = `${subject}.waiting`;
    const consumerBus = await EventBus.connect({ url: natsUrl, name: durable, logger: silentLogger, namespace });
    let attempts = 0;
    const handled: unknown[] = [];
    const outage = Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    await consumerBus.subscribe({
      durable,
      subject: waitingSubject,
      maxDeliver: 2,
      transientMaxDeliver: 50,
      retryDelaysMs: [10],
      handler: async (payload) => {
        attempts += 1;
        if (attempts <= 4) throw outage; // the database is down for four deliveries, twice the poison limit
        if (attempts === 5) throw new UpstreamError(503, "document service unavailable", "upstream_unavailable");
        handled.push(payload);
      },
    });
    try {
      await bus.publish(waitingSubject, { patient: true }, { msgId: randomUUID() });
      await eventually(() => (handled.length === 1 ? true : undefined));
      expect(attempts).to.equal(6);
      const jsm = await jetstreamManager(bus.connection);
      const dead = await jsm.streams
        .getMessage(bus.deadLetterStream, { last_by_subj: `${bus.deadLetterPrefix}.${durable}` })
        .catch(() => null);
      expect(dead).to.equal(null);
    } finally {
      await consumerBus.close();
    }
  });

  it("hands a batch subscriber what arrived meanwhile in one call, and dead-letters a poison event alone", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const batchSubject = `${subject}.batched`;
    const consumerBus = await EventBus.connect({ url: natsUrl, name: durable, logger: silentLogger, namespace });
    const calls: number[] = [];
    const handled: unknown[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const subscription = await consumerBus.subscribeBatches({
      durable,
      subject: batchSubject,
      maxDeliver: 2,
      retryDelaysMs: [10],
      handler: async (events) => {
        calls.push(events.length);
        // The first call holds the consumer, so what arrives meanwhile piles up into the next batch.
        if (calls.length === 1) await held;
        if (events.some((event) => event.payload === undefined || (event.payload as { poison?: boolean }).poison))
          throw new Error("poison in the batch");
        handled.push(...events.map((event) => event.payload));
      },
    });
    try {
      await bus.publish(batchSubject, { n: 0 }, { msgId: randomUUID() });
      await eventually(() => (calls.length === 1 ? true : undefined));
      for (let n = 1; n <= 3; n += 1) await bus.publish(batchSubject, { n }, { msgId: randomUUID() });
      await bus.publish(batchSubject, { poison: true }, { msgId: randomUUID() });
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      await eventually(() => (handled.length === 4 ? true : undefined));
      // The second call had all four waiting events; it failed, so they were retried one by one.
      expect(calls.slice(0, 2)).to.deep.equal([1, 4]);
      expect(handled).to.deep.equal([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
      const jsm = await jetstreamManager(bus.connection);
      const dead = await eventually(async () => {
        try {
          return await jsm.streams.getMessage(bus.deadLetterStream, { last_by_subj: `${bus.deadLetterPrefix}.${durable}` });
        } catch {
          return undefined;
        }
      });
      expect(dead!.json()).to.deep.equal({ poison: true });
      expect(dead!.header.get("x-original-subject")).to.equal(batchSubject);
    } finally {
      await subscription.stop();
      await consumerBus.close();
    }
  });

  it("runs up to `concurrency` handlers at once, keeps events a handler holds past the ack wait from redelivery, and tells the service when it stops", async () => {
    const durable = `kit_test_${randomBytes(4).toString("hex")}`;
    const consumerBus = await EventBus.connect({ url: natsUrl, name: durable, logger: silentLogger, namespace });
    let active = 0;
    let mostActive = 0;
    const deliveries = new Map<number, number[]>();
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let stopping = false;
    const subscription = await consumerBus.subscribe({
      durable,
      subject,
      ackWaitMs: 600,
      maxInFlight: 10,
      concurrency: 4,
      onStop: () => {
        stopping = true;
        release();
      },
      handler: async (payload, message) => {
        const n = (payload as { n: number }).n;
        deliveries.set(n, [...(deliveries.get(n) ?? []), message.deliveryCount]);
        active += 1;
        mostActive = Math.max(mostActive, active);
        try {
          // Held three times the ack wait: without the handler's heartbeat NATS would deliver it again meanwhile.
          await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 1_800))]);
          if (stopping) throw new Error("let go at stop");
        } finally {
          active -= 1;
        }
      },
    });
    try {
      for (let n = 0; n < 6; n += 1) await bus.publish(subject, { n }, { msgId: randomUUID() });
      await eventually(() => (deliveries.size >= 4 ? true : undefined));
      expect(mostActive).to.equal(4);
      // The first four are held past the ack wait, then end; the last two follow.
      await eventually(() => (deliveries.size === 6 ? true : undefined), 10_000);
      expect(mostActive).to.equal(4);
      expect([...deliveries.values()].filter((counts) => counts.length > 1)).to.deep.equal([]);
    } finally {
      await subscription.stop();
      await consumerBus.close();
    }
    expect(stopping).to.equal(true);
  });

  it("broadcasts an event to every listening instance in the namespace, under its canonical subject", async () => {
    const received: Array<{ payload: unknown; subject: string }> = [];
    const other = await EventBus.connect({ url: natsUrl, name: "kit-test-other", logger: silentLogger, namespace });
    const first = bus.broadcast("docex.membership.changed", (payload, subject) => received.push({ payload, subject }));
    const second = other.broadcast("docex.membership.changed", (payload, subject) => received.push({ payload, subject }));
    try {
      await bus.connection.flush();
      await other.connection.flush();
      await bus.publish("docex.membership.changed", { user_id: "u" }, { msgId: randomUUID() });
      await eventually(() => (received.length >= 2 ? true : undefined));
      expect(received).to.deep.equal([
        { payload: { user_id: "u" }, subject: "docex.membership.changed" },
        { payload: { user_id: "u" }, subject: "docex.membership.changed" },
      ]);
    } finally {
      first.stop();
      second.stop();
      await other.close();
    }
  });
});
