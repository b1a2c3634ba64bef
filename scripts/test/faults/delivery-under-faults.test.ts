import { eventually, RecordingReceiver } from "@docex/testkit";
import { expect } from "chai";
import { type DeliveryTally, tallyDeliveries } from "./support/delivery-ledger.js";
import { FaultStack, STACK_PROCESS_NAMES } from "./support/fault-stack.js";
import { NatsServerProcess } from "./support/nats-server-process.js";
import { terminateBackends } from "./support/postgres-cut.js";
import { type ReadinessRecord, ReadinessWatch } from "./support/readiness-watch.js";
import { ReceiverDoor } from "./support/receiver-door.js";
import { StatusBurst, sleep } from "./support/status-burst.js";

/** Status changes over the four scenarios; CI sets fewer (see .ci/run). */
const TOTAL_CHANGES = Number(process.env.FAULTS_STATUS_CHANGES ?? 5_000);
const SCENARIOS = 4;
const CHANGES_PER_SCENARIO = Math.max(40, Math.round(TOTAL_CHANGES / SCENARIOS));
const DOCUMENTS = Math.max(4, Math.min(60, Math.round(CHANGES_PER_SCENARIO / 25)));
const CHANGES_PER_DOCUMENT = Math.ceil(CHANGES_PER_SCENARIO / DOCUMENTS);
const CONCURRENCY = Number(process.env.FAULTS_CONCURRENCY ?? 12);
const RECEIVER_DOWN_MS = Number(process.env.FAULTS_RECEIVER_DOWN_SECONDS ?? 10) * 1_000;
/**
 * Seconds between attempts: short so that the suite runs in minutes, long enough in total (41 s, 8 attempts as in
 * production) that a receiver down for RECEIVER_DOWN_MS is still within the schedule when it comes back.
 */
const RETRY_SCHEDULE = "1,1,2,2,5,10,20";
/** How long after a burst every change must have arrived (the schedule's tail plus the lease of a killed sender). */
const DELIVERY_TIMEOUT_MS = 120_000;

interface ScenarioResult {
  fault: string;
  changes: number;
  seconds: number;
  failedRequests: number;
  failures: string;
  /** Answers 500 during the burst, reads included, and a few of their bodies. */
  internalErrors: number;
  internalErrorExamples: string[];
  tally: DeliveryTally;
  deliveredAfterMs: number;
  failedDeliveries: number;
  readiness: ReadinessRecord;
  /** What unready processes answered on /readyz when the stack did not become ready again. */
  unready: string;
  note: string;
}

describe("faults: every status change reaches the webhook receiver through faults (the stack's processes, own NATS, shared Postgres)", function () {
  this.timeout(360_000);
  let nats: NatsServerProcess | undefined;
  let stack: FaultStack | undefined;
  let receiver: RecordingReceiver | undefined;
  let door: ReceiverDoor | undefined;
  let queueId = "";
  let webhookId = "";
  let signingKey = "";
  const results: ScenarioResult[] = [];
  // A run stopped with Ctrl-C leaves no processes behind.
  const killLeftovers = () => {
    stack?.killNow();
    nats?.killNow();
  };

  before(async function () {
    this.timeout(300_000);
    process.once("exit", killLeftovers);
    nats = await NatsServerProcess.start();
    stack = await FaultStack.start({
      nats,
      env: {
        WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
        // A killed sender's deliveries are due again after the lease and its unacknowledged events after the
        // ack wait; the production values (30 s, 15 s) would only make the suite slower.
        WEBHOOK_DELIVERY_TIMEOUT_MS: "3000",
        WEBHOOK_DELIVERY_LEASE_MS: "5000",
        WEBHOOK_CONSUMER_ACK_WAIT_MS: "5000",
        WEBHOOK_BREAKER_RESET_MS: "2000",
      },
    });
    receiver = await RecordingReceiver.start();
    door = await ReceiverDoor.open(receiver.url);
    const token = await stack.login();
    const call = (method: string, path: string, body?: unknown) => stack!.call(method, path, { token, body });
    const organization = await eventually(async () => {
      const answer = await call("GET", "/organizations");
      return answer.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap");
    }, 30_000);
    const workspace = await call("POST", "/workspaces", { organization_id: organization.id, name: "Faults" });
    expect(workspace.status, JSON.stringify(workspace.body)).to.equal(201);
    const queue = await call("POST", "/queues", { workspace_id: workspace.body.data.id, name: "Faults inbox" });
    expect(queue.status, JSON.stringify(queue.body)).to.equal(201);
    queueId = queue.body.data.id;
    const key = await call("POST", `/organizations/${organization.id}/webhook-signing-key`);
    expect(key.status, JSON.stringify(key.body)).to.equal(201);
    signingKey = key.body.data.key;
    const webhook = await call("POST", "/webhooks", {
      url: `${door.url}/docex/events`,
      entity_type: "organization",
      entity_id: organization.id,
      signature_verification: "enabled",
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    webhookId = webhook.body.data.id;
  });

  afterEach(function () {
    if (this.currentTest?.state !== "failed" || !stack) return;
    process.stdout.write(
      `\n${STACK_PROCESS_NAMES.map((name) => stack!.logTail(name, 20)).join("\n")}\n[nats] ${nats?.logTail(1_500) ?? ""}\n`,
    );
  });

  after(async function () {
    this.timeout(120_000);
    if (results.length > 0) process.stdout.write(report(results));
    await stack?.dispose();
    await door?.close();
    await receiver?.stop();
    await nats?.dispose();
    process.off("exit", killLeftovers);
  });

  /**
   * One burst of CHANGES_PER_SCENARIO status changes with `fault` injected once `faultAt` of them were made;
   * then every change must arrive, the stack must be ready again by itself, and no delivery may have failed.
   */
  async function burstWithFault(name: string, faultAt: number, fault: () => Promise<string | undefined>): Promise<ScenarioResult> {
    const token = await stack!.login();
    const burst = new StatusBurst({
      call: (method, path, body) => stack!.call(method, path, { token, body }),
      queueId,
      documents: DOCUMENTS,
      changesPerDocument: CHANGES_PER_DOCUMENT,
      concurrency: CONCURRENCY,
      timeoutMs: 240_000,
    });
    const running = burst.run();
    // Surfaces a burst that fails before the fault instead of waiting for it.
    await Promise.race([burst.reached(Math.floor(burst.target * faultAt)), running]);
    const watch = new ReadinessWatch(stack!);
    let note = "";
    let faultError: unknown;
    try {
      note = (await fault()) ?? "";
    } catch (error) {
      faultError = error;
    }
    watch.faultEnded();
    const burstError = await running.then(
      () => undefined,
      (error: unknown) => error ?? new Error("the burst failed"),
    );
    const readiness = await watch.settle(90_000);
    const unready = readiness.readyAgainAfterMs === undefined ? await stack!.unreadyDetail() : "";
    if (faultError) throw faultError;
    if (burstError) throw burstError;
    const deliveredAt = Date.now();
    let tally = tallyDeliveries(receiver!.requests, burst.changes, signingKey);
    try {
      tally = await eventually(
        () => {
          const now = tallyDeliveries(receiver!.requests, burst.changes, signingKey);
          return now.missing === 0 ? now : undefined;
        },
        DELIVERY_TIMEOUT_MS,
        250,
      );
    } catch {
      tally = tallyDeliveries(receiver!.requests, burst.changes, signingKey);
    }
    const deliveredAfterMs = Date.now() - deliveredAt;
    // Repeats of an attempt whose answer was lost come within a lease; give them the time to show up in the count.
    await sleep(1_000);
    tally = tallyDeliveries(receiver!.requests, burst.changes, signingKey);
    const failed = await stack!.call("GET", `/webhooks/${webhookId}/deliveries?status=failed&page_size=1`, { token });
    const result: ScenarioResult = {
      fault: name,
      changes: burst.made,
      seconds: (burst.endedAt - burst.startedAt) / 1_000,
      failedRequests: burst.failedRequests,
      failures: [...burst.failures].map(([reason, count]) => `${reason} ×${count}`).join(", "),
      internalErrors: burst.internalErrors,
      internalErrorExamples: burst.internalErrorExamples,
      tally,
      deliveredAfterMs,
      failedDeliveries: failed.body?.pagination?.total ?? Number.NaN,
      readiness,
      unready,
      note,
    };
    results.push(result);
    return result;
  }

  function expectNothingLost(result: ScenarioResult): void {
    const { tally } = result;
    expect(result.changes, "status changes made").to.equal(DOCUMENTS * CHANGES_PER_DOCUMENT);
    expect(tally.missing, `changes never delivered within ${DELIVERY_TIMEOUT_MS} ms, e.g. ${tally.missingExamples.join("; ")}`).to.equal(0);
    expect(tally.extra, "deliveries of changes nobody made").to.equal(0);
    expect(tally.delivered).to.equal(tally.expected);
    expect(tally.badSignatures, "receipts without a valid x-service-signature").to.equal(0);
    expect(result.failedDeliveries, "deliveries the webhook service gave up on").to.equal(0);
    expect(result.readiness.readyAgainAfterMs, `every process ready again after the fault, by itself; ${result.unready}`).to.be.a("number");
    expect(stack!.unexpectedExits, "processes that exited by themselves").to.deep.equal([]);
  }

  it("(a) when the webhook service is SIGKILLed mid-burst and started again, every change arrives at least once", async () => {
    const result = await burstWithFault("webhook service SIGKILLed, restarted after 1 s", 0.3, async () => {
      await stack!.kill("webhook", "SIGKILL");
      await sleep(1_000);
      stack!.restart("webhook");
      return undefined;
    });
    expectNothingLost(result);
  });

  it("(b) when NATS is restarted mid-burst (SIGTERM, same port and store), every change arrives and every service is ready again by itself", async () => {
    const result = await burstWithFault("NATS restarted (SIGTERM, down 3 s, same port and store)", 0.3, async () => {
      await nats!.stop();
      await sleep(3_000);
      await nats!.start();
      return undefined;
    });
    expectNothingLost(result);
  });

  it("(c) when the stack's Postgres connections are terminated mid-burst, no request answers 500, every change arrives and every service is ready again by itself", async () => {
    const result = await burstWithFault("Postgres backends of the stack terminated (twice, 1 s apart)", 0.3, async () => {
      const first = await terminateBackends(stack!.databases);
      await sleep(1_000);
      const second = await terminateBackends(stack!.databases);
      return `${first} + ${second} backends terminated`;
    });
    expect(result.note).to.match(/^[1-9]/);
    // A lost database connection is the server's trouble and passes: 503 database_unavailable with Retry-After.
    expect(result.internalErrors, `answers 500 while the connections were cut: ${result.internalErrorExamples.join("; ")}`).to.equal(0);
    expectNothingLost(result);
  });

  it("(d) when the receiver is down for a while, it gets every change once it is back on the same port", async () => {
    let receivedWhileDown = 0;
    const result = await burstWithFault(
      `receiver down ${RECEIVER_DOWN_MS / 1_000} s (connections refused), back on the same port`,
      0.1,
      async () => {
        await door!.close();
        const downSince = Date.now();
        // A request that was already through the door when it closed may still be recorded.
        await sleep(200);
        const before = receiver!.requests.length;
        await sleep(RECEIVER_DOWN_MS);
        receivedWhileDown = receiver!.requests.length - before;
        await door!.open();
        return `down ${((Date.now() - downSince) / 1_000).toFixed(1)} s`;
      },
    );
    expect(receivedWhileDown, "requests that reached the receiver while it was down").to.equal(0);
    expectNothingLost(result);
  });
});

function report(results: ScenarioResult[]): string {
  const rows = results.map((result) => {
    const { tally, readiness } = result;
    const ready = readiness.readyAgainAfterMs === undefined ? "not ready" : `${(readiness.readyAgainAfterMs / 1_000).toFixed(1)} s`;
    return `| ${result.fault} | ${result.changes} (${(result.changes / result.seconds).toFixed(0)}/s) | ${result.failedRequests} | ${tally.delivered} | ${tally.missing} | ${tally.receipts} | ${tally.duplicates} | ${(result.deliveredAfterMs / 1_000).toFixed(1)} s | ${result.failedDeliveries} | ${readiness.wentUnready.join(", ") || "none"} | ${ready} |`;
  });
  const details = results
    .filter((result) => result.failures || result.note)
    .map(
      (result) =>
        `- ${result.fault}: ${[result.note, result.failures && `requests that failed and were settled by reading the document: ${result.failures}`].filter(Boolean).join("; ")}`,
    );
  const total = results.reduce((sum, result) => sum + result.changes, 0);
  const duplicates = results.reduce((sum, result) => sum + result.tally.duplicates, 0);
  return [
    "",
    `Fault suite: ${total} status changes (${DOCUMENTS} documents × ${CHANGES_PER_DOCUMENT} per scenario, ${CONCURRENCY} at a time), retry schedule ${RETRY_SCHEDULE} s; ${duplicates} duplicate receipts in all.`,
    "",
    "| fault | changes made | failed requests | delivered | missing | receipts | duplicates | all delivered after the burst in | deliveries failed | went unready | all ready again after the fault |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ...rows,
    "",
    ...details,
    "",
  ].join("\n");
}
