// Issue 20 on one machine: two replicas of document and of webhook share the gRPC calls (item 1), a replica
// SIGTERMed under load drains without a failed request or a repeated delivery (item 4), and with NATS and auth
// stopped every process stays ready while the reads that need neither keep answering (item 2). One stack (each
// process a child of this test, its own nats-server, shared Postgres) serves the three, in this order.
import { eventually, RecordingReceiver } from "@docex/testkit";
import { expect } from "chai";
import { tallyDeliveries } from "./faults/support/delivery-ledger.js";
import { FaultStack, type StackProcessName } from "./faults/support/fault-stack.js";
import { NatsServerProcess } from "./faults/support/nats-server-process.js";
import { StatusBurst, sleep } from "./faults/support/status-burst.js";
import type { Answer } from "./support/stack.js";

const GRPC_SERVICES = { document: "docex.document.v1.Document", webhook: "docex.webhook.v1.Webhook" } as const;

/** gRPC calls a process served for one of its services so far (health checks are another service), from its /metrics. */
async function grpcCallsServed(stack: FaultStack, process: StackProcessName, grpcService: string): Promise<number> {
  const text = await (await fetch(`${stack.processUrl(process)}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  let calls = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("grpc_server_handling_seconds_count{") && line.includes(`grpc_service="${grpcService}"`)) {
      calls += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return calls;
}

/** Runs `request` from `workers` loops until `until()` says stop; the answers that were not 200, by what they were. */
async function loadUntil(
  until: () => boolean,
  workers: number,
  request: () => Promise<Answer>,
): Promise<{ sent: number; failed: string[] }> {
  const result = { sent: 0, failed: [] as string[] };
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!until()) {
        result.sent += 1;
        try {
          const answer = await request();
          if (answer.status !== 200) result.failed.push(`${answer.status} ${answer.body?.code ?? ""}`);
        } catch (error) {
          result.failed.push(String(error));
        }
      }
    }),
  );
  return result;
}

describe("scaling out (issue 20): calls spread over replicas, drains lose nothing, readiness survives NATS and auth outages", function () {
  this.timeout(300_000);
  let nats: NatsServerProcess | undefined;
  let stack: FaultStack | undefined;
  let deliveries: RecordingReceiver | undefined;
  let validation: RecordingReceiver | undefined;
  let token = "";
  let queueId = "";
  let documentId = "";
  let signingKey = "";
  const killLeftovers = () => {
    stack?.killNow();
    nats?.killNow();
  };
  const call = (method: string, path: string, body?: unknown) => stack!.call(method, path, { token, body });
  /** A read through webhook that asks document over gRPC (ResolveEntity) and membership. */
  const listWebhooks = () => call("GET", `/queues/${queueId}/webhooks`);
  /** An edit through document that asks webhook over gRPC (Validate: the queue's document_validation link). */
  let edits = 0;
  const editAnnotations = () =>
    call("PATCH", `/documents/${documentId}/annotations`, { annotations: [{ key: "invoice_id", value: `INV-${++edits}` }] });

  before(async function () {
    this.timeout(240_000);
    process.once("exit", killLeftovers);
    nats = await NatsServerProcess.start();
    stack = await FaultStack.start({
      nats,
      replicas: { document: 2, webhook: 2 },
      env: {
        // Short, so that a delivery a stopped replica left behind would show up within the test (none should).
        WEBHOOK_RETRY_SCHEDULE: "1,1,2,2,5,10,20",
        WEBHOOK_DELIVERY_TIMEOUT_MS: "3000",
        WEBHOOK_DELIVERY_LEASE_MS: "5000",
        WEBHOOK_CONSUMER_ACK_WAIT_MS: "5000",
        // The 200 ms budget is about users' patience; on a loaded test machine it would only add noise.
        DOCUMENT_VALIDATION_TIMEOUT_MS: "5000",
        // Quickly ready again in the readiness test's checks; the production shutdown budget is not what is tested.
        SHUTDOWN_TIMEOUT_MS: "10000",
      },
    });
    deliveries = await RecordingReceiver.start();
    deliveries.respondWith(() => ({ status: 204 }));
    validation = await RecordingReceiver.start();
    validation.respondWith(() => ({ status: 200, body: [] }));
    token = await stack.login();
    const organization = await eventually(async () => {
      const answer = await call("GET", "/organizations");
      return answer.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap");
    }, 30_000);
    const created = async (method: string, path: string, body?: unknown) => {
      const answer = await call(method, path, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).to.be.oneOf([200, 201]);
      return answer.body.data;
    };
    const workspace = await created("POST", "/workspaces", { organization_id: organization.id, name: "Scale out" });
    queueId = (await created("POST", "/queues", { workspace_id: workspace.id, name: "Scale-out inbox" })).id;
    signingKey = (await created("POST", `/organizations/${organization.id}/webhook-signing-key`)).key;
    await created("POST", "/webhooks", {
      url: `${deliveries.url}/docex/events`,
      entity_type: "organization",
      entity_id: organization.id,
      signature_verification: "enabled",
    });
    await created("POST", `/queues/${queueId}/external-validation-links`, {
      url: `${validation.url}/validate`,
      type: "document_validation",
    });
    documentId = (await created("POST", `/queues/${queueId}/documents`, { file_name: "scale-out.pdf" })).id;
    await created("POST", `/documents/${documentId}/extraction`, { annotations: [{ key: "invoice_id", value: "INV-0" }], confidence: 90 });
    // The document service learns of the validation link through an event; edits call webhook's Validate from then on.
    await eventually(
      async () => {
        const answer = await editAnnotations();
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        return validation!.requests.length > 0 ? true : undefined;
      },
      60_000,
      250,
    );
  });

  after(async function () {
    this.timeout(120_000);
    await stack?.dispose();
    await deliveries?.stop();
    await validation?.stop();
    await nats?.dispose();
    process.off("exit", killLeftovers);
  });

  afterEach(function () {
    if (this.currentTest?.state !== "failed" || !stack) return;
    process.stdout.write(`\n${stack.processNames.map((name) => stack!.logTail(name, 15)).join("\n")}\n`);
  });

  it("item 1: each of two replicas of document and of webhook serves at least 30 % of the gRPC calls of a load through the gateway", async () => {
    const replicas = { document: ["document", "document-2"], webhook: ["webhook", "webhook-2"] } as const;
    const served = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(replicas).flatMap(([service, names]) =>
            names.map(async (name) => [name, await grpcCallsServed(stack!, name, GRPC_SERVICES[service as keyof typeof GRPC_SERVICES])]),
          ),
        ),
      ) as Record<string, number>;
    const before = await served();
    let rounds = 0;
    const load = await loadUntil(
      () => rounds++ >= 120,
      4,
      async () => {
        const [listed, edited] = await Promise.all([listWebhooks(), editAnnotations()]);
        return listed.status !== 200 ? listed : edited;
      },
    );
    expect(load.failed, "requests that did not answer 200").to.deep.equal([]);
    const after = await served();
    const shares: string[] = [];
    for (const [service, names] of Object.entries(replicas)) {
      const calls = names.map((name) => after[name]! - before[name]!);
      const total = calls[0]! + calls[1]!;
      expect(total, `${service} gRPC calls during the load`).to.be.at.least(100);
      names.forEach((name, index) => {
        const share = calls[index]! / total;
        shares.push(`${name} ${(share * 100).toFixed(1)} % (${calls[index]} of ${total})`);
        expect(share, `share of ${name}`).to.be.at.least(0.3);
      });
    }
    process.stdout.write(`      gRPC calls served: ${shares.join(", ")}\n`);
  });

  it("item 1: while a replica of document is SIGKILLed, the stack keeps answering through the other one", async () => {
    let killedAt = 0;
    let stop = false;
    const failedAfterKill: string[] = [];
    const load = loadUntil(
      () => stop,
      2,
      async () => {
        const startedAt = Date.now();
        const answer = await listWebhooks();
        if (answer.status !== 200 && killedAt > 0 && startedAt > killedAt) failedAfterKill.push(`${answer.status} ${answer.body?.code}`);
        return answer;
      },
    );
    await sleep(1_000);
    await stack!.kill("document-2", "SIGKILL");
    killedAt = Date.now();
    await sleep(3_000);
    stop = true;
    const { sent, failed } = await load;
    process.stdout.write(`      ${sent} reads, ${failed.length} failed (in flight on the killed replica at most)\n`);
    expect(failedAfterKill, "reads sent after the replica was gone that failed").to.deep.equal([]);
    expect(failed.length, "reads that failed: at most those in flight when it was killed").to.be.at.most(2);
    stack!.restart("document-2");
    await stack!.waitUntilReady(90_000);
  });

  it("item 4: a webhook replica SIGTERMed under load through the gateway drains: 0 failed requests, 0 repeated or missing deliveries", async () => {
    const burst = new StatusBurst({
      call: (method, path, body) => call(method, path, body),
      queueId,
      documents: 8,
      changesPerDocument: 6,
      concurrency: 4,
      timeoutMs: 180_000,
    });
    const running = burst.run();
    const editing = loadUntil(() => burst.endedAt > 0, 2, editAnnotations);
    await Promise.race([burst.reached(Math.floor(burst.target * 0.3)), running]);
    const stoppingAt = Date.now();
    await stack!.kill("webhook-2", "SIGTERM", 60_000);
    const stopSeconds = (Date.now() - stoppingAt) / 1_000;
    await running;
    const editLoad = await editing;
    expect([...burst.failures], "status changes that failed").to.deep.equal([]);
    expect(editLoad.failed, "edits (validated by webhook over gRPC) that failed").to.deep.equal([]);
    const tally = await eventually(
      () => {
        const now = tallyDeliveries(deliveries!.requests, burst.changes, signingKey);
        return now.missing === 0 ? now : undefined;
      },
      60_000,
      250,
    );
    // A repeat would come after the lease (5 s) of a delivery the stopped replica left claimed.
    await sleep(6_000);
    const final = tallyDeliveries(deliveries!.requests, burst.changes, signingKey);
    process.stdout.write(
      `      webhook-2 stopped in ${stopSeconds.toFixed(1)} s; ${burst.made} status changes and ${editLoad.sent} edits, ` +
        `${final.delivered} deliveries, ${final.duplicates} repeated\n`,
    );
    expect(tally.missing).to.equal(0);
    expect(final.extra, "deliveries of changes nobody made").to.equal(0);
    expect(final.badSignatures).to.equal(0);
    expect(final.duplicates, "deliveries received more than once").to.equal(0);
    expect(stack!.unexpectedExits).to.deep.equal([]);
    stack!.restart("webhook-2");
    await stack!.waitUntilReady(90_000);
  });

  it("item 2: with NATS and auth stopped, the gateway and every service stay ready, and reads that need neither answer 200", async () => {
    const read = () => call("GET", `/documents/${documentId}`);
    expect((await read()).status, "a read before the outage").to.equal(200);
    await nats!.stop();
    await stack!.kill("auth", "SIGTERM");
    const others = stack!.processNames.filter((name) => name !== "auth");
    const readyz = async (name: StackProcessName) => {
      const response = await fetch(`${stack!.processUrl(name)}/readyz`, { signal: AbortSignal.timeout(5_000) });
      return { status: response.status, body: (await response.json()) as { dependencies: Record<string, string> } };
    };
    // Until every process has noticed: the gateway that auth's JWKS is gone, each service that NATS is.
    await eventually(
      async () => {
        const reports = await Promise.all(others.map(async (name) => [name, await readyz(name)] as const));
        for (const [name, report] of reports) expect(report.status, `${name} /readyz: ${JSON.stringify(report.body)}`).to.equal(200);
        const noticed = reports.every(([name, report]) =>
          name === "gateway" ? report.body.dependencies.auth_jwks !== "ok" : report.body.dependencies.nats !== "ok",
        );
        return noticed ? true : undefined;
      },
      30_000,
      500,
    );
    for (let check = 0; check < 3; check++) {
      expect((await stack!.readiness()).gateway, "the gateway stays ready").to.equal(true);
      const answer = await read();
      expect(answer.status, `a document read: ${JSON.stringify(answer.body)}`).to.equal(200);
      expect((await listWebhooks()).status, "a webhook list (webhook → document and membership over gRPC)").to.equal(200);
      await sleep(1_000);
    }
    const ready = await stack!.readiness();
    for (const name of others) expect(ready[name], `${name} ready`).to.equal(true);
    const login = await stack!.call("POST", "/auth/login", { body: stack!.owner });
    expect(login.status, "what needs auth answers 503").to.equal(503);
    expect(login.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const gatewayMetrics = await (await fetch(`${stack!.processUrl("gateway")}/metrics`)).text();
    expect(gatewayMetrics).to.match(/dependency_up\{dependency="auth_jwks"[^}]*\} 0/);
  });
});
