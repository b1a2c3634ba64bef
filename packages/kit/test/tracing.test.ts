import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { expect } from "chai";
import { type DeliveredMessage, EventBus } from "../src/bus/event-bus.js";
import { kitMigrations, Outbox } from "../src/bus/outbox.js";
import { serviceConfigSchema } from "../src/config.js";
import { connectDatabase, runMigrations } from "../src/db/database.js";
import type { Sql } from "../src/db/sql.js";
import { Metrics } from "../src/metrics.js";
import { tracingSettingsFrom } from "../src/tracing/settings.js";
import { inSpan } from "../src/tracing/spans.js";
import { baseUrlOf, dropDatabase, eventually, natsUrl, serverUrl, silentLogger, uniqueName } from "./support.js";

const run = promisify(execFile);
const fixture = fileURLToPath(new URL("./fixtures/traced-process.mjs", import.meta.url));
const workerFixture = fileURLToPath(new URL("./fixtures/traced-worker.mjs", import.meta.url));
const kitDir = fileURLToPath(new URL("..", import.meta.url));

describe("tracing settings: only the standard OTEL_* variables", () => {
  it("is off without an endpoint, and off with OTEL_SDK_DISABLED=true even with one", () => {
    expect(tracingSettingsFrom({}, "document")).to.equal(undefined);
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }, "document")).to.equal(
      undefined,
    );
  });

  it("is on with an endpoint: http/protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL says http/json, named after the service unless OTEL_SERVICE_NAME says otherwise", () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, "document")).to.deep.equal({
      serviceName: "document",
      protocol: "http/protobuf",
    });
    expect(
      tracingSettingsFrom(
        {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces",
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "docs",
        },
        "document",
      ),
    ).to.deep.equal({ serviceName: "docs", protocol: "http/json" });
  });

  it("takes a variable set to the empty string as unset, in the register and in every process's config schema", () => {
    const empty = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
      OTEL_EXPORTER_OTLP_PROTOCOL: "",
      OTEL_SDK_DISABLED: "",
      OTEL_SERVICE_NAME: "",
      OTEL_TRACES_SAMPLER: "",
    };
    expect(tracingSettingsFrom(empty, "document")).to.equal(undefined);
    const config = serviceConfigSchema("document").parse({ ...empty, GRPC_INSECURE: "true" });
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).to.equal(undefined);
    expect(() => serviceConfigSchema("document").parse({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).to.throw(/OTEL_EXPORTER_OTLP_PROTOCOL/);
  });

  it("refuses a protocol the kit does not export with, naming the variable", () => {
    expect(() =>
      tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "auth"),
    ).to.throw(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/);
  });
});

/** A stand-in collector: counts what reaches /v1/traces and reads OTLP/JSON. */
async function startCollector(): Promise<{ server: Server; exports: Array<{ contentType: string; body: Buffer }> }> {
  const exports: Array<{ contentType: string; body: Buffer }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      exports.push({ contentType: String(req.headers["content-type"]), body: Buffer.concat(chunks) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, exports };
}

interface FixtureReport {
  tracing: boolean;
  registered: string[];
  innerTraceparent: string | null;
  innerBaggage: string | null;
  log: Record<string, unknown>;
  logs: Array<Record<string, unknown>>;
}

/** Runs the fixture as a service runs: with the kit's tracing register first. */
async function runFixture(env: Record<string, string>): Promise<FixtureReport> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  const { stdout } = await run(process.execPath, ["--import", "@docex/kit/tracing/register", fixture], {
    cwd: kitDir,
    env: { ...clean, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as FixtureReport;
}

describe("the tracing register in a process (node --import @docex/kit/tracing/register)", function () {
  this.timeout(60_000);
  let collector: Awaited<ReturnType<typeof startCollector>>;
  before(async () => {
    collector = await startCollector();
  });
  after(() => new Promise<void>((resolve) => collector.server.close(() => resolve())));
  beforeEach(() => {
    collector.exports.length = 0;
  });
  const clientTrace = randomBytes(16).toString("hex");
  const clientTraceparent = `00-${clientTrace}-${randomBytes(8).toString("hex")}-01`;

  it("with no endpoint set starts nothing: no tracer, context manager or propagator is registered, and requests carry no traceparent", async () => {
    const report = await runFixture({ CLIENT_TRACEPARENT: clientTraceparent });
    expect(report.tracing).to.equal(false);
    expect(report.registered).to.deep.equal([]);
    expect(report.innerTraceparent).to.equal(null);
    expect(report.log).not.to.have.property("trace_id");
  });

  it("with OTEL_SDK_DISABLED=true sends nothing even though an endpoint is set", async () => {
    const report = await runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: baseUrlOf(collector.server),
      OTEL_SDK_DISABLED: "true",
      CLIENT_TRACEPARENT: clientTraceparent,
    });
    expect(report.tracing).to.equal(false);
    expect(report.innerTraceparent).to.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(collector.exports).to.deep.equal([]);
  });

  it("starts the SDK in the main thread only: worker threads (which inherit --import) register nothing", async () => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
    const { stdout } = await run(process.execPath, ["--import", "@docex/kit/tracing/register", workerFixture], {
      cwd: kitDir,
      env: { ...clean, OTEL_EXPORTER_OTLP_ENDPOINT: baseUrlOf(collector.server) },
      timeout: 30_000,
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as { inWorker: string[]; inMain: string[] };
    expect(report.inMain).to.include.members(["trace", "context", "propagation"]);
    expect(report.inWorker).to.deep.equal([]);
  });

  it("with an endpoint continues the client's trace (not its baggage), hands it on to outgoing requests, names it in log lines and exports as http/json", async () => {
    const report = await runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: baseUrlOf(collector.server),
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      CLIENT_TRACEPARENT: clientTraceparent,
    });
    expect(report.tracing).to.equal(true);
    expect(report.innerTraceparent?.split("-")[1]).to.equal(clientTrace);
    // The client's baggage is not propagated: the kit's SDK propagates trace context only.
    expect(report.innerBaggage).to.equal(null);
    expect(report.log).to.include({ trace_id: clientTrace, msg: "handling outer" });
    expect(report.log.span_id).to.match(/^[0-9a-f]{16}$/);
    expect(collector.exports.length).to.be.greaterThan(0);
    expect(collector.exports.every((received) => received.contentType.startsWith("application/json"))).to.equal(true);
    const spans = collector.exports.flatMap((received) =>
      (
        JSON.parse(received.body.toString("utf8")) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{ spans: Array<{ traceId: string; name: string }> }>;
          }>;
        }
      ).resourceSpans.flatMap((resourceSpans) =>
        resourceSpans.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            ...span,
            service: resourceSpans.resource.attributes.find((attribute) => attribute.key === "service.name")?.value.stringValue,
          })),
        ),
      ),
    );
    expect(spans.map((span) => span.traceId)).to.satisfy((ids: string[]) => ids.every((id) => id === clientTrace));
    expect(spans.map((span) => span.name)).to.include.members(["GET /outer", "GET /inner"]);
    // The default service name is the package of the main script's (here the kit's, the fixture's package).
    expect(new Set(spans.map((span) => span.service))).to.deep.equal(new Set(["kit"]));
  });
  it("exports no query secret: url.query, url.full and the log lines say [redacted] where the token, code and PIN were, and keep the other parameters", async () => {
    const secret = `tok-${randomBytes(12).toString("hex")}`;
    const report = await runFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: baseUrlOf(collector.server),
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      QUERY_SECRET: secret,
    });
    expect(report.tracing).to.equal(true);
    const exported = collector.exports.map((received) => received.body.toString("utf8")).join("\n");
    expect(exported, "the exported spans").to.not.include(secret);
    type Attribute = { key: string; value: { stringValue?: string } };
    const attributes = collector.exports.flatMap((received) =>
      (
        JSON.parse(received.body.toString("utf8")) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes: Attribute[] }> }> }>;
        }
      ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.flatMap((span) => span.attributes))),
    );
    const values = (key: string) => attributes.filter((attribute) => attribute.key === key).map((attribute) => attribute.value.stringValue);
    // The instrumentations did record the queries (the server spans without `?`, the fetch's with it): redacted, not dropped.
    expect(values("url.query")).to.include.members([
      "token=[redacted]&page=1",
      "code=[redacted]&pin=[redacted]&page=2",
      "?code=[redacted]&pin=[redacted]&page=2",
    ]);
    expect(values("url.full").some((url) => url?.endsWith("/inner?code=[redacted]&pin=[redacted]&page=2"))).to.equal(true);
    expect(JSON.stringify(report.logs), "the log lines").to.not.include(secret);
    expect(report.logs.find((line) => String(line.msg).startsWith("asked for"))).to.include({
      msg: "asked for /outer?token=[redacted]&page=1",
      url: "/outer?token=[redacted]&page=1",
    });
  });
});

describe("trace context through the outbox and JetStream (real Postgres and NATS)", () => {
  const database = uniqueName("tracing");
  const runId = randomBytes(4).toString("hex");
  const namespace = { stream: `DOCEX_KIT_TRACE_${runId.toUpperCase()}`, subjectPrefix: `docex_kit_trace_${runId}` };
  const exporter = new InMemorySpanExporter();
  let sql: Sql;
  let bus: EventBus;

  before(async () => {
    // What the register does in a service, in this process: a tracer provider, async context and W3C propagation.
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    await runMigrations(sql, kitMigrations, silentLogger);
    bus = await EventBus.connect({ url: natsUrl, name: "kit-trace-test", logger: silentLogger, namespace });
  });

  after(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    const jsm = await jetstreamManager(bus.connection);
    for (const stream of [namespace.stream, bus.deadLetterStream]) await jsm.streams.delete(stream).catch(() => undefined);
    await bus.close();
    await sql.close();
    await dropDatabase(database);
  });

  it("an event written in a request's trace is stored with it, published in a producer span of it and handled in a consumer span under that", async () => {
    const subject = `docex.test_${randomBytes(4).toString("hex")}.happened`;
    const handled: Array<{ message: DeliveredMessage; activeSpanId: string | undefined; activeTraceId: string | undefined }> = [];
    await bus.subscribe({
      durable: `kit_trace_${runId}`,
      subject,
      handler: async (_payload, message) => {
        const active = trace.getActiveSpan()?.spanContext();
        handled.push({ message, activeSpanId: active?.spanId, activeTraceId: active?.traceId });
      },
    });
    const outbox = new Outbox({ sql, bus, logger: silentLogger });
    const id = randomUUID();
    const request = await inSpan("request", { kind: SpanKind.SERVER }, async (span) => {
      await sql.transaction((tx) => outbox.add(tx, { id, subject, payload: { n: 1 } }));
      return span.spanContext();
    });

    // The event belongs to the transaction that wrote it, a span of the request.
    const finished = (name: string) => eventually(() => exporter.getFinishedSpans().find((span) => span.name === name));
    const transaction = await finished("db.transaction");
    expect(transaction.parentSpanContext?.spanId, "the transaction is a span of the request").to.equal(request.spanId);
    const row = await sql.one<{ trace_context: Record<string, string> }>("SELECT trace_context FROM outbox WHERE id = $1", [id]);
    expect(row?.trace_context.traceparent).to.equal(`00-${request.traceId}-${transaction.spanContext().spanId}-01`);

    await outbox.relayBatch();
    const delivery = await eventually(() => handled[0]);
    const publish = await finished(`publish ${subject}`);
    expect(publish.kind).to.equal(SpanKind.PRODUCER);
    expect(publish.spanContext().traceId).to.equal(request.traceId);
    expect(publish.parentSpanContext?.spanId).to.equal(transaction.spanContext().spanId);
    const consume = await finished(`process ${subject}`);
    expect(consume.kind).to.equal(SpanKind.CONSUMER);
    expect(consume.parentSpanContext?.spanId, "the consumer's span is a child of the publish").to.equal(publish.spanContext().spanId);
    expect(delivery.activeSpanId, "the handler runs in the consumer's span").to.equal(consume.spanContext().spanId);
    expect(delivery.message.traceContext?.traceparent).to.equal(`00-${request.traceId}-${consume.spanContext().spanId}-01`);
  });
});

describe("exemplars on the HTTP duration histogram", () => {
  const labels = { route: "/api/v2/documents/:id", method: "PATCH", status_code: "200" };
  const traced = { trace_id: "0af7651916cd43dd8448eb211c80319c", span_id: "b7ad6b7169203331" };

  it("with tracing on, a request's trace is its bucket's exemplar, served as OpenMetrics", async () => {
    const metrics = new Metrics("kit-test", { defaultMetrics: false, exemplars: true });
    metrics.observeHttpRequest(labels, 0.004, traced);
    expect(metrics.registry.contentType).to.match(/^application\/openmetrics-text/);
    const text = await metrics.registry.metrics();
    expect(text).to.match(
      /http_request_duration_seconds_bucket\{le="0.005",[^}]*route="\/api\/v2\/documents\/:id"[^}]*\} 1 # \{trace_id="0af7651916cd43dd8448eb211c80319c",span_id="b7ad6b7169203331"\} 0.004 /,
    );
  });

  it("with tracing off, the histogram and its format are Prometheus' text as before, without exemplars", async () => {
    const metrics = new Metrics("kit-test", { defaultMetrics: false });
    expect(metrics.exemplars).to.equal(false);
    metrics.observeHttpRequest(labels, 0.004, {});
    expect(metrics.registry.contentType).to.match(/^text\/plain; version=0.0.4/);
    const text = await metrics.registry.metrics();
    expect(text).to.match(/http_request_duration_seconds_bucket\{le="0.005",[^}]*\} 1\n/);
    expect(text).not.to.include("trace_id");
  });
});
