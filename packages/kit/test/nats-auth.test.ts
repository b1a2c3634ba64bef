import { randomBytes, randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { expect } from "chai";
import { loadConfig, serviceConfigSchema } from "../src/config.js";
import { connectInfrastructure } from "../src/runtime.js";
import { NatsServerProcess } from "./nats-server-process.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

describe("NATS authentication (a nats-server of the test's own, with token auth)", () => {
  const token = randomBytes(24).toString("hex");
  const database = uniqueName("nats_auth");
  let nats: NatsServerProcess;

  before(async () => {
    nats = await NatsServerProcess.start(["--auth", token]);
  });

  after(async () => {
    await nats?.dispose();
    await dropDatabase(database);
  });

  /** A service's configuration as its environment would give it. */
  const configWith = (env: Record<string, string>) =>
    loadConfig(serviceConfigSchema("register"), {
      DATABASE_URL: serverUrl,
      DATABASE_NAME: database,
      GRPC_INSECURE: "true",
      LOG_LEVEL: "silent",
      NATS_URL: nats.url,
      ...env,
    });

  it("a service with NATS_TOKEN connects, creates its streams and publishes", async () => {
    const infra = await connectInfrastructure("register", configWith({ NATS_TOKEN: token }), { logger: silentLogger, migrations: [] });
    try {
      await infra.bus.publish("docex.register.updated", { ok: true }, { msgId: randomUUID() });
      const jsm = await jetstreamManager(infra.bus.connection);
      expect((await jsm.streams.info("DOCEX")).state.messages).to.equal(1);
    } finally {
      await infra.bus.close();
      await infra.sql.close();
    }
  });

  it("without NATS_TOKEN the start fails with a message that names the setting", async () => {
    const failure = await connectInfrastructure("register", configWith({}), { logger: silentLogger, migrations: [] }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.include(`cannot connect to NATS at ${nats.url}`).and.to.include("set NATS_TOKEN");
  });

  it("with a wrong NATS_TOKEN the start fails saying NATS refused it", async () => {
    const failure = await connectInfrastructure("register", configWith({ NATS_TOKEN: "not-the-token" }), {
      logger: silentLogger,
      migrations: [],
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.include("NATS refused NATS_TOKEN");
  });
});
