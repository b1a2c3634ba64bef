import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEvent, EVENT_SERVICES, EVENT_TYPES, type EventService, eventTypesWithoutPublisher } from "@docex/events";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection, PermissionViolationError } from "@nats-io/transport-node";
import { expect } from "chai";
import { type DeliveredMessage, EventBus } from "../src/bus/event-bus.js";
import { NATS_OPERATOR_USER, natsAuthorizationConfig, natsPermissionsOf } from "../src/bus/nats-users.js";
import { loadConfig, serviceConfigSchema } from "../src/config.js";
import { connectInfrastructure } from "../src/runtime.js";
import { NatsServerProcess } from "./nats-server-process.js";
import { dropDatabase, eventually, serverUrl, silentLogger, uniqueName } from "./support.js";

describe("per-service NATS users (a nats-server of the test's own, configured by natsAuthorizationConfig)", () => {
  const runId = randomBytes(4).toString("hex");
  // A namespace, as test stacks run in one: the permissions follow the stream and prefix they are generated for.
  const namespace = { stream: `DOCEX_PERM_${runId.toUpperCase()}`, subjectPrefix: `docex_perm_${runId}` };
  const passwords = Object.fromEntries(EVENT_SERVICES.map((service) => [service, randomBytes(16).toString("hex")])) as Record<
    EventService,
    string
  >;
  const operatorPassword = randomBytes(16).toString("hex");
  const database = uniqueName("nats_users");
  let configDir: string;
  let nats: NatsServerProcess;
  let operator: NatsConnection;
  const opened: Array<{ close(): Promise<void> }> = [];

  before(async () => {
    configDir = mkdtempSync(path.join(tmpdir(), "docex-nats-users-"));
    const config = natsAuthorizationConfig({
      namespace,
      passwords: Object.fromEntries(EVENT_SERVICES.map((service) => [service, { value: passwords[service] }])) as Record<
        EventService,
        { value: string }
      >,
      operatorPassword: { value: operatorPassword },
    });
    const file = path.join(configDir, "nats.conf");
    writeFileSync(file, config, { mode: 0o600 });
    nats = await NatsServerProcess.start(["-c", file]);
    operator = await connect({ servers: nats.url, user: NATS_OPERATOR_USER, pass: operatorPassword });
  });

  afterEach(async () => {
    for (const connection of opened.splice(0)) await connection.close().catch(() => undefined);
  });

  after(async () => {
    await operator?.close();
    await nats?.dispose();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
    await dropDatabase(database);
  });

  /** A service's bus as the kit connects it with NATS_USER and NATS_PASSWORD, and the permission errors NATS sends it. */
  async function busOf(service: EventService): Promise<{ bus: EventBus; violations: PermissionViolationError[] }> {
    const bus = await EventBus.connect({
      url: nats.url,
      name: service,
      logger: silentLogger,
      namespace,
      credentials: { user: service, password: passwords[service] },
    });
    opened.push(bus);
    const violations: PermissionViolationError[] = [];
    (async () => {
      for await (const status of bus.connection.status()) {
        if (status.type === "error" && status.error instanceof PermissionViolationError) violations.push(status.error);
      }
    })().catch(() => undefined);
    return { bus, violations };
  }

  const wire = (type: string) => `${namespace.subjectPrefix}.${type}`;

  async function messagesOn(subject: string): Promise<number> {
    const jsm = await jetstreamManager(operator);
    const info = await jsm.streams.info(namespace.stream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  it("every event type has a publisher in SERVICE_EVENTS, and the extraction service may publish nothing", () => {
    expect(eventTypesWithoutPublisher()).to.deep.equal([]);
    const extraction = natsPermissionsOf("extraction", namespace).publish;
    for (const type of EVENT_TYPES) expect(extraction).not.to.include(wire(type));
  });

  it("(a) a service's user cannot publish another service's event: NATS refuses it and the stream never holds it", async () => {
    const webhook = await busOf("webhook");
    const extraction = await busOf("extraction");
    const forged = (type: "queue.deleted" | "document.extracted") => ({ id: randomUUID(), type, forged: true });

    const webhookAttempt = await webhook.bus.publish("docex.queue.deleted", forged("queue.deleted"), { msgId: randomUUID() }).then(
      () => "published",
      (error: Error) => error,
    );
    const extractionAttempt = await extraction.bus
      .publish("docex.document.extracted", forged("document.extracted"), { msgId: randomUUID() })
      .then(
        () => "published",
        (error: Error) => error,
      );

    expect(webhookAttempt).to.be.instanceOf(Error);
    expect(extractionAttempt).to.be.instanceOf(Error);
    await eventually(() => (webhook.violations.length > 0 && extraction.violations.length > 0 ? true : undefined));
    expect(webhook.violations.map((error) => [error.operation, error.subject])).to.deep.include(["publish", wire("queue.deleted")]);
    expect(extraction.violations.map((error) => [error.operation, error.subject])).to.deep.include(["publish", wire("document.extracted")]);
    expect(await messagesOn(wire("queue.deleted"))).to.equal(0);
    expect(await messagesOn(wire("document.extracted"))).to.equal(0);
    // Nor can it dress the forgery up as the stream's own API: deleting the stream is not among its calls.
    const deletion = await extraction.bus.connection.request(`$JS.API.STREAM.DELETE.${namespace.stream}`, "", { timeout: 1_000 }).then(
      () => "answered",
      (error: Error) => error,
    );
    expect(deletion).to.be.instanceOf(Error);
    expect((await (await jetstreamManager(operator)).streams.info(namespace.stream)).config.name).to.equal(namespace.stream);
  });

  it("(b) a service's user cannot subscribe to what it does not consume, neither plainly nor through a JetStream consumer", async () => {
    const extraction = await busOf("extraction");
    const heard: unknown[] = [];
    extraction.bus.broadcast("docex.document.extracted", (payload) => heard.push(payload));
    await eventually(() =>
      extraction.violations.some((error) => error.operation === "subscription" && error.subject === wire("document.extracted"))
        ? true
        : undefined,
    );
    const stolen = await extraction.bus
      .subscribe({ durable: "extraction__stolen", subject: "docex.document.extracted", handler: async () => undefined })
      .then(
        () => "subscribed",
        (error: Error) => error,
      );
    expect(stolen).to.be.instanceOf(Error);
    const consumers = await (await jetstreamManager(operator)).consumers.list(namespace.stream).next();
    expect(consumers.map((consumer) => consumer.name)).not.to.include("extraction__stolen");
    // And the replies to another service's requests (its pulled events among them) arrive in an inbox it cannot read.
    const sniffer = await connect({ servers: nats.url, user: "extraction", pass: passwords.extraction });
    opened.push(sniffer);
    const sniffed: string[] = [];
    (async () => {
      for await (const status of sniffer.status()) if (status.type === "error") sniffed.push(String(status.error));
    })().catch(() => undefined);
    sniffer.subscribe("_INBOX_document.>");
    await eventually(() => (sniffed.some((text) => /permissions violation/i.test(text)) ? true : undefined));
    expect(heard).to.deep.equal([]);
  });

  it("(c) with its own user a service publishes its events through the outbox relay, and another consumes them through its durable", async () => {
    const config = loadConfig(serviceConfigSchema("document"), {
      DATABASE_URL: serverUrl,
      DATABASE_NAME: database,
      GRPC_INSECURE: "true",
      LOG_LEVEL: "silent",
      NATS_URL: nats.url,
      NATS_STREAM: namespace.stream,
      NATS_SUBJECT_PREFIX: namespace.subjectPrefix,
      NATS_USER: "document",
      NATS_PASSWORD: passwords.document,
    });
    const document = await connectInfrastructure("document", config, { logger: silentLogger, migrations: [], outboxPollIntervalMs: 50 });
    opened.push({ close: () => document.bus.close().then(() => document.sql.close()) });
    const extraction = await busOf("extraction");
    const received: Array<{ payload: unknown; message: DeliveredMessage }> = [];
    await extraction.bus.subscribe({
      durable: "extraction__document_created",
      subject: "docex.document.created",
      handler: async (payload, message) => {
        received.push({ payload, message });
      },
    });
    const ids = { document_id: randomUUID(), queue_id: randomUUID(), workspace_id: randomUUID(), organization_id: randomUUID() };
    const event = createEvent("document.created", {
      organization_id: ids.organization_id,
      data: { ...ids, file_name: "invoice.pdf", file_sha256: null },
    });
    document.outbox.start();
    try {
      await document.sql.transaction((tx) => document.events.add(tx, event));
      const delivered = await eventually(() => received[0]);
      expect(delivered.message.subject).to.equal("docex.document.created");
      expect(delivered.message.msgId).to.equal(event.id);
      expect((delivered.payload as { id: string }).id).to.equal(event.id);
    } finally {
      await document.outbox.stop();
    }
    // Its own consumers' acks went through: nothing is left pending or waiting for redelivery.
    await eventually(async () => {
      const info = await (await jetstreamManager(operator)).consumers.info(namespace.stream, "extraction__document_created");
      return info.num_ack_pending === 0 && info.num_pending === 0 ? true : undefined;
    });
    expect(extraction.violations).to.deep.equal([]);
  });
});
