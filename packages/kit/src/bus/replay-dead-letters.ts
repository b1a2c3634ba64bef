/**
 * Puts dead-lettered events back on the stream (EventBus.replayDeadLetters), after an outage that outlasted a
 * consumer's redeliveries. Runs in any service's image:
 *
 *   node packages/kit/dist/bus/replay-dead-letters.js [durable]
 *
 * With a durable consumer's name (e.g. `webhook__document_status_changed`), only its dead letters; without, all.
 * Reads NATS_URL, NATS_STREAM and NATS_SUBJECT_PREFIX as the services do. Prints one line per replayed event.
 */
import { loadConfigOrExit, serviceConfigSchema } from "../config.js";
import { createLogger } from "../logger.js";
import { EventBus } from "./event-bus.js";

const config = loadConfigOrExit(
  serviceConfigSchema("membership").pick({ NATS_URL: true, NATS_STREAM: true, NATS_SUBJECT_PREFIX: true, LOG_LEVEL: true }),
);
const durable = process.argv[2];
const logger = createLogger("replay-dead-letters", config.LOG_LEVEL);
const bus = await EventBus.connect({
  url: config.NATS_URL,
  name: "replay-dead-letters",
  logger,
  namespace: { stream: config.NATS_STREAM, subjectPrefix: config.NATS_SUBJECT_PREFIX },
});
try {
  const replayed = await bus.replayDeadLetters(durable);
  for (const event of replayed) console.log(`${event.durable}\t${event.subject}\t${event.msgId ?? "-"}`);
  console.log(`replayed ${replayed.length} dead-lettered event${replayed.length === 1 ? "" : "s"}${durable ? ` of ${durable}` : ""}`);
} finally {
  await bus.close();
}
