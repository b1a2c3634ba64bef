import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { testEventNamespace, testNatsUrl } from "./infra.js";

/** Mocha root hooks: after the run, remove the streams of this process's event namespace. */
export const mochaHooks = {
  async afterAll(this: unknown) {
    const { stream } = testEventNamespace();
    const connection = await connect({ servers: testNatsUrl(), timeout: 3_000 }).catch(() => undefined);
    if (!connection) return;
    try {
      const jsm = await jetstreamManager(connection);
      for (const name of [stream, `${stream}_DLQ`]) await jsm.streams.delete(name).catch(() => undefined);
    } finally {
      await connection.close();
    }
  },
};
