/**
 * Puts dead-lettered events back on the stream (EventBus.replayDeadLetters), after an outage that outlasted a
 * consumer's redeliveries. Runs in any service's image:
 *
 *   node packages/kit/dist/bus/replay-dead-letters.js [durable]
 *
 * With a durable consumer's name (e.g. `webhook__document_status_changed`), only its dead letters; without, all.
 * Reads the NATS settings as the services do (the address, stream, limits and token), so connecting changes
 * nothing about the streams. Prints one line per replayed event.
 */
import { loadConfigOrExit, serviceConfigSchema } from "../config.js";
import { createLogger } from "../logger.js";
import { busSettingsOf, NATS_SETTINGS } from "../runtime.js";
import { EventBus } from "./event-bus.js";

const config = loadConfigOrExit(serviceConfigSchema("membership").pick({ ...NATS_SETTINGS, LOG_LEVEL: true }));
const durable = process.argv[2];
const logger = createLogger("replay-dead-letters", config.LOG_LEVEL);
const bus = await EventBus.connect({ name: "replay-dead-letters", logger, ...busSettingsOf(config) });
try {
  const replayed = await bus.replayDeadLetters(durable);
  for (const event of replayed) console.log(`${event.durable}\t${event.subject}\t${event.msgId ?? "-"}`);
  console.log(`replayed ${replayed.length} dead-lettered event${replayed.length === 1 ? "" : "s"}${durable ? ` of ${durable}` : ""}`);
} finally {
  await bus.close();
}
