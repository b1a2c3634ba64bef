// Gives docex's JetStream streams as many replicas as the NATS cluster has servers. The kit
// creates DOCEX and DOCEX_DLQ with one replica when the first service starts; on a 3-node
// cluster that copy lives on one server only. This waits until the streams exist and then
// raises their replicas; consumers without a replica count of their own (the kit's) follow.
// Running it again changes nothing.
//
//   NATS_URL=nats://nats:4222 node replicate-streams.mjs --replicas=3 [--wait-seconds=1800] DOCEX DOCEX_DLQ
import { parseArgs } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

const { values, positionals: streams } = parseArgs({
  allowPositionals: true,
  options: { replicas: { type: "string", default: "3" }, "wait-seconds": { type: "string", default: "1800" } },
});
const url = process.env.NATS_URL ?? "nats://nats:4222";
const replicas = Number(values.replicas);
const deadline = Date.now() + Number(values["wait-seconds"]) * 1000;
if (!Number.isInteger(replicas) || replicas < 1 || streams.length === 0) {
  console.error("usage: node replicate-streams.mjs --replicas=N [--wait-seconds=S] STREAM...");
  process.exit(2);
}

const connection = await connect({ servers: url.split(","), timeout: 5_000, name: "replicate-streams" });
try {
  const jsm = await jetstreamManager(connection, { timeout: 10_000 });
  for (const name of streams) {
    let info = await jsm.streams.info(name).catch(() => undefined);
    while (!info) {
      if (Date.now() > deadline) throw new Error(`stream ${name} does not exist yet: start the services first`);
      console.log(`waiting for the services to create stream ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      info = await jsm.streams.info(name).catch(() => undefined);
    }
    if (info.config.num_replicas === replicas) {
      console.log(`${name} has ${replicas} replicas`);
      continue;
    }
    await jsm.streams.update(name, { num_replicas: replicas });
    console.log(`${name}: ${info.config.num_replicas} → ${replicas} replicas`);
  }
} finally {
  await connection.close();
}
