import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { expect } from "chai";
import { EventBus } from "../src/bus/event-bus.js";
import { natsUrl, silentLogger } from "./support.js";

describe("JetStream stream replicas (real NATS, one server)", () => {
  const runId = randomBytes(4).toString("hex");
  const namespace = { stream: `DOCEX_KIT_R_${runId.toUpperCase()}`, subjectPrefix: `docex_kit_r_${runId}` };
  const unreplicable = { stream: `${namespace.stream}_X`, subjectPrefix: `${namespace.subjectPrefix}_x` };

  after(async () => {
    const connection = await connect({ servers: natsUrl });
    const jsm = await jetstreamManager(connection);
    for (const { stream } of [namespace, unreplicable])
      for (const name of [stream, `${stream}_DLQ`]) await jsm.streams.delete(name).catch(() => undefined);
    await connection.close();
  });

  it("creates the stream and its dead-letter stream with the configured replicas", async () => {
    const bus = await EventBus.connect({ url: natsUrl, name: "kit-test-replicas", logger: silentLogger, namespace, streamReplicas: 1 });
    try {
      const jsm = await jetstreamManager(bus.connection);
      for (const stream of [namespace.stream, bus.deadLetterStream])
        expect((await jsm.streams.info(stream)).config.num_replicas, stream).to.equal(1);
    } finally {
      await bus.close();
    }
  });

  it("more replicas than the NATS servers can hold fails the connect with a message naming the stream and the count", async () => {
    const failure = await EventBus.connect({
      url: natsUrl,
      name: "kit-test-replicas",
      logger: silentLogger,
      namespace: unreplicable,
      streamReplicas: 3,
    }).then(
      async (bus) => {
        await bus.close();
        return undefined;
      },
      (error: Error) => error,
    );
    expect(failure?.message).to.match(new RegExp(`JetStream stream ${unreplicable.stream} (with|from \\d+ to) 3 replica`));
  });
});
