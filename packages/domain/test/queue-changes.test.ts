import { randomBytes, randomUUID } from "node:crypto";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import { eventually, testNatsUrl } from "@docex/testkit";
import { jetstreamManager } from "@nats-io/jetstream";
import { expect } from "chai";
import { forgetChangedQueues } from "../src/queue-changes.js";

describe("queue-change eviction (forgetChangedQueues, real NATS)", () => {
  const runId = randomBytes(4).toString("hex");
  const namespace = { stream: `DOCEX_DOMAIN_${runId.toUpperCase()}`, subjectPrefix: `docex_domain_${runId}` };
  const logger = createLogger("domain-test", "silent");
  let bus: EventBus;

  before(async () => {
    bus = await EventBus.connect({ url: testNatsUrl(), name: "domain-test", logger, namespace });
  });

  after(async () => {
    const jsm = await jetstreamManager(bus.connection);
    for (const stream of [namespace.stream, bus.deadLetterStream]) await jsm.streams.delete(stream).catch(() => undefined);
    await bus.close();
  });

  it("forgets a changed or deleted queue on every instance, and everything for an unreadable change", async () => {
    const forgotten: Array<string | undefined> = [];
    const eviction = forgetChangedQueues(bus, (queueId) => forgotten.push(queueId));
    try {
      await bus.connection.flush();
      const change = (resource: string) => ({ data: { resource, resource_id: `${resource}-1`, change: "updated" } });
      await bus.publish("docex.configuration.changed", change("webhook"), { msgId: randomUUID() });
      await bus.publish("docex.configuration.changed", change("queue"), { msgId: randomUUID() });
      await bus.publish("docex.configuration.changed", "not an event", { msgId: randomUUID() });
      await eventually(() => (forgotten.length >= 2 ? true : undefined));
      await bus.publish("docex.queue.deleted", { data: { queue_id: "queue-2" } }, { msgId: randomUUID() });
      await eventually(() => (forgotten.length >= 3 ? true : undefined));
      expect(forgotten).to.deep.equal(["queue-1", undefined, "queue-2"]);
    } finally {
      eviction.stop();
    }
  });

  it("forgets a queue whose validators changed: its link, a validation webhook on it; every queue for one above queues", async () => {
    const forgotten: Array<string | undefined> = [];
    const eviction = forgetChangedQueues(bus, (queueId) => forgotten.push(queueId));
    try {
      await bus.connection.flush();
      const publish = (data: Record<string, unknown>) =>
        bus.publish("docex.configuration.changed", { data: { change: "updated", ...data } }, { msgId: randomUUID() });
      await publish({ resource: "validation_link", resource_id: "document_validation", queue_id: "queue-3" });
      // A delivery webhook changes no validator: nothing is forgotten.
      await publish({ resource: "webhook", resource_id: "w-1", queue_id: "queue-4", current: { type: "document_status_changed" } });
      await publish({
        resource: "webhook",
        resource_id: "w-2",
        queue_id: "queue-5",
        previous: { type: "document_validation" },
        current: null,
      });
      await publish({ resource: "webhook", resource_id: "w-3", queue_id: null, current: { type: "initial_document_validation" } });
      await eventually(() => (forgotten.length >= 3 ? true : undefined));
      expect(forgotten).to.deep.equal(["queue-3", "queue-5", undefined]);
    } finally {
      eviction.stop();
    }
  });
});
