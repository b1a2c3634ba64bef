import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import { connect, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { errorSummaryOf, type Logger } from "../logger.js";
import type { Metrics, StreamSize } from "../metrics.js";
import { contextOfCarrier, currentTraceCarrier, inSpan, SpanKind, startSpan, type TraceCarrier, withSpan } from "../tracing/spans.js";
import { isTransientFailure } from "../transient-failures.js";

export const STREAM = "DOCEX";
export const DEAD_LETTER_STREAM = "DOCEX_DLQ";
/** Subjects are written `docex.<type>` everywhere in the code; a namespace maps them on the wire. */
const CANONICAL_PREFIX = "docex";
const NANOS_PER_MS = 1_000_000;
/** The outcomes `events_consumed_total` counts per consumer. */
const CONSUMER_OUTCOMES = ["ok", "retry", "dead_letter"] as const;

export interface PublishOptions {
  /** JetStream drops a second message with the same id inside the duplicate window. */
  msgId: string;
  requestId?: string;
  /** The W3C trace context the message carries to its consumers (the producer span of the outbox relay). */
  traceContext?: TraceCarrier;
}

export interface DeliveredMessage {
  subject: string;
  msgId: string | undefined;
  requestId: string | undefined;
  deliveryCount: number;
  /** The trace context of the handling of this message (its consumer span), to store with work it leaves for later. */
  traceContext?: TraceCarrier;
}

export type EventHandler = (payload: unknown, message: DeliveredMessage) => Promise<void>;

/** One event of a batch, as a batch handler sees it. */
export interface BatchedEvent extends DeliveredMessage {
  /** The decoded JSON, or undefined when the message was not JSON (the handler decides what that means). */
  payload: unknown;
}

/** Handles a batch as a whole: it resolves once all of it is durable, or throws and none of it counts. */
export type BatchEventHandler = (events: BatchedEvent[]) => Promise<void>;

export interface EventNamespace {
  /** The JetStream stream; `DOCEX` in production. */
  stream: string;
  /** What replaces `docex` in subjects on the wire; `docex` in production. */
  subjectPrefix: string;
}

export const PRODUCTION_NAMESPACE: EventNamespace = { stream: STREAM, subjectPrefix: CANONICAL_PREFIX };

/** How much a stream keeps. A full stream refuses new messages instead of dropping old ones (`discard: new`). */
export interface StreamLimits {
  /** Messages older than this are removed; 0 keeps them until the size limit. */
  maxAgeMs: number;
  /** Bytes the stream may hold; undefined for no limit. */
  maxBytes?: number | undefined;
}

/** The subject on the wire in `namespace` for a canonical `docex.…` subject. */
export function wireSubjectOf(subject: string, namespace: EventNamespace): string {
  if (subject === CANONICAL_PREFIX || subject.startsWith(`${CANONICAL_PREFIX}.`)) {
    return `${namespace.subjectPrefix}${subject.slice(CANONICAL_PREFIX.length)}`;
  }
  return subject;
}

/** Where the dead letters of `namespace` go: `dlq.<durable>` in production. */
export function deadLetterPrefixOf(namespace: EventNamespace): string {
  return namespace.subjectPrefix === CANONICAL_PREFIX ? "dlq" : `${namespace.subjectPrefix}_dlq`;
}

/**
 * Where the replies to a user's requests arrive (JetStream's publish acknowledgements, API answers, pulled messages):
 * a prefix of its own, so that no service may subscribe to another's replies, as `_INBOX.>` would let it.
 */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}

/** What a service connects to NATS with, besides the address. */
export interface NatsCredentials {
  /** The token of nats.conf's `authorization { token }`. */
  token?: string | undefined;
  /**
   * The service's own user of nats.conf's `authorization { users }` and its password: NATS then lets it publish and
   * subscribe only to what SERVICE_EVENTS (@docex/events) allows it (`natsPermissionsOf`).
   */
  user?: string | undefined;
  password?: string | undefined;
  /** A CA file: the connection must be TLS, with a server certificate that chains to it. */
  tlsCaFile?: string | undefined;
}

/** The code's defaults: a week of events, a month of dead letters, no size limit (deployments set one). */
export const DEFAULT_STREAM_LIMITS = {
  events: { maxAgeMs: 7 * 24 * 3_600_000 },
  deadLetters: { maxAgeMs: 30 * 24 * 3_600_000 },
} satisfies Record<string, StreamLimits>;

export interface SubscriptionOptions {
  /**
   * Durable consumer name, unique per service and purpose, e.g. `webhook__document_status_changed`:
   * instances of a service share it, so each event is handled by one of them.
   */
  durable: string;
  subject: string;
  handler: EventHandler;
  /** Deliveries before a message whose handling keeps failing goes to the dead-letter stream (a poison event). */
  maxDeliver?: number;
  /**
   * Deliveries before a message goes to the dead-letter stream while its handling fails only for transient reasons
   * (the database or a called service unavailable: `isTransientFailure`): an outage is waited out, up to about
   * this many retries at the last retry delay (by default 200 × 30 s, some 1.5 h), instead of dead-lettering
   * every event that arrives during it.
   */
  transientMaxDeliver?: number;
  ackWaitMs?: number;
  /** Delay before redelivery after a failed attempt, by attempt number (the last one repeats). */
  retryDelaysMs?: number[];
  maxInFlight?: number;
  /**
   * Handlers running at once (1 by default: one event after the other). Above 1, each event is handed to a handler
   * without waiting for the ones before it, up to this many at once, the rest waiting in hand (`maxInFlight` bounds
   * both); every event in hand is reported to NATS as in progress every third of `ackWaitMs`, so one that waits, or
   * whose handler waits its turn (a scheduler of the service's own), is not redelivered. Order between events is
   * then the handler's business.
   */
  concurrency?: number;
  /**
   * Told when a concurrent subscription stops taking events, before it waits for its handlers: the moment to let go of
   * events still waiting their turn (their handlers then fail, and they are given back at once for another instance).
   */
  onStop?: () => void;
}

/**
 * A durable consumer that hands its handler every event that arrived meanwhile in one batch, for handlers
 * whose cost is one commit per call: one-at-a-time handling is then bounded by the commit latency (2–4 ms,
 * so a few hundred events per second), while one commit per batch is not; a lone event is still handled the
 * moment it arrives. The retry and dead-letter rules are the ones of `subscribe`, applied event by event: a
 * batch that fails is retried one event at a time, so one poison event cannot take its neighbours to the
 * dead-letter stream with it.
 */
export interface BatchSubscriptionOptions extends Omit<SubscriptionOptions, "handler"> {
  handler: BatchEventHandler;
  /** Events handed to one call of the handler at most; 256 by default. `maxInFlight` defaults to four batches. */
  maxBatch?: number;
}

/** A running durable consumer; `EventBus.close` stops it too. */
export interface Subscription {
  /** Stops taking events and lets the work in hand finish; what was not acked yet is redelivered later. */
  stop(): Promise<void>;
}

interface RedeliveryRules {
  durable: string;
  /** Deliveries before a poison event is dead-lettered, and while failures are only transient. */
  poison: number;
  transient: number;
  retryDelaysMs: number[];
}

export type BroadcastHandler = (payload: unknown, subject: string) => void;

/**
 * NATS JetStream for docex: the stream `DOCEX` (subjects `docex.>`), publishing with a message
 * id, and durable pull consumers with explicit ack, bounded redelivery and a dead-letter stream.
 */
export class EventBus {
  private readonly consumers: Array<{ stop: () => Promise<void> }> = [];

  private constructor(
    readonly connection: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly logger: Logger,
    readonly namespace: EventNamespace,
    private readonly metrics?: Metrics,
    private readonly streamReplicas = 1,
    private readonly streamLimits: { events: StreamLimits; deadLetters: StreamLimits } = DEFAULT_STREAM_LIMITS,
  ) {}

  static async connect(options: {
    url: string;
    name: string;
    logger: Logger;
    metrics?: Metrics;
    /** Tests run in a namespace of their own, so runs never see each other's events. */
    namespace?: EventNamespace;
    /**
     * Replicas of the streams, at most the number of NATS servers; 1 by default. A stream with
     * fewer is raised to this many; one with more is left as it is (lowering is an operator's call).
     */
    streamReplicas?: number;
    /** Limits of the stream and of its dead-letter stream, applied to existing streams too; `DEFAULT_STREAM_LIMITS` if not given. */
    streamLimits?: { events: StreamLimits; deadLetters: StreamLimits };
    credentials?: NatsCredentials;
  }): Promise<EventBus> {
    const credentials = options.credentials ?? {};
    const { token, user, password, tlsCaFile } = credentials;
    if ((user === undefined) !== (password === undefined))
      throw new Error(user === undefined ? "NATS_PASSWORD is set without NATS_USER" : "NATS_USER is set without NATS_PASSWORD");
    if (user !== undefined && token !== undefined)
      throw new Error("NATS_USER and NATS_TOKEN are both set: a NATS server takes one or the other");
    const connection = await connect({
      servers: options.url.split(","),
      name: options.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      timeout: 5_000,
      // Without this every request, and so every JetStream publish, captures a stack trace in case it fails: about
      // 2 % of the document service's CPU under the stack benchmark. Failures still carry their own stack.
      noAsyncTraces: true,
      ...(token ? { token } : {}),
      // Its user may subscribe to its own inbox only (natsPermissionsOf).
      ...(user !== undefined ? { user, pass: password, inboxPrefix: inboxPrefixOf(user) } : {}),
      ...(tlsCaFile ? { tls: { caFile: tlsCaFile } } : {}),
    }).catch((error: unknown) => {
      throw connectFailure(options.url, credentials, error);
    });
    (async () => {
      for await (const status of connection.status()) {
        if (status.type === "disconnect" || status.type === "reconnect")
          options.logger.warn({ nats: status.type }, "NATS connection status");
      }
    })().catch(() => undefined);
    const jsm = await jetstreamManager(connection, { timeout: 5_000 });
    const namespace = options.namespace ?? PRODUCTION_NAMESPACE;
    const bus = new EventBus(
      connection,
      jetstream(connection, { timeout: 5_000 }),
      jsm,
      options.logger,
      namespace,
      options.metrics,
      options.streamReplicas,
      options.streamLimits,
    );
    try {
      await bus.ensureStreams();
    } catch (error) {
      await connection.close();
      throw error;
    }
    options.metrics?.watchStreams(() => bus.streamSizes());
    return bus;
  }

  private async ensureStreams(): Promise<void> {
    const { stream, subjectPrefix } = this.namespace;
    await this.ensureStream({ name: stream, subjects: [`${subjectPrefix}.>`] }, limitSettings(this.streamLimits.events, 10 * 60_000));
    await this.ensureStream(
      { name: `${stream}_DLQ`, subjects: [`${this.deadLetterPrefix}.>`] },
      limitSettings(this.streamLimits.deadLetters, 2 * 60_000),
    );
  }

  /** Creates the stream, or brings an existing one to these limits and up to the configured replicas. */
  private async ensureStream(config: { name: string; subjects: string[] }, limits: LimitSettings): Promise<void> {
    const { name } = config;
    const replicas = this.streamReplicas;
    let info = await this.jsm.streams.info(name).catch(() => undefined);
    if (!info) {
      try {
        await this.jsm.streams.add({ ...config, ...limits, storage: StorageType.File, num_replicas: replicas });
        return;
      } catch (error) {
        // Another instance may have created it between our look and our add.
        info = await this.jsm.streams.info(name).catch(() => undefined);
        if (!info) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new Error(`cannot create JetStream stream ${name} with ${replicas} replica(s) (more than the NATS servers?): ${reason}`, {
            cause: error,
          });
        }
      }
    }
    const existing = info.config;
    const changed = (Object.keys(limits) as Array<keyof LimitSettings>).filter((key) => existing[key] !== limits[key]);
    if (changed.length > 0) {
      await this.jsm.streams.update(name, limits).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`cannot apply the limits of JetStream stream ${name}: ${reason}`, { cause: error });
      });
      const before = Object.fromEntries(changed.map((key) => [key, existing[key]]));
      this.logger.info({ stream: name, before, after: limits }, "stream limits applied");
      if (limits.max_bytes > 0 && info.state.bytes > limits.max_bytes)
        this.logger.warn(
          { stream: name, bytes: info.state.bytes, max_bytes: limits.max_bytes },
          "stream holds more than its new size limit",
        );
    }
    const current = info.config.num_replicas || 1;
    if (current < replicas) {
      await this.jsm.streams.update(name, { num_replicas: replicas }).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`cannot raise JetStream stream ${name} from ${current} to ${replicas} replicas: ${reason}`, { cause: error });
      });
      this.logger.info({ stream: name, from: current, to: replicas }, "stream replicas raised");
    } else if (current > replicas) {
      this.logger.warn(
        { stream: name, replicas: current, configured: replicas },
        "stream has more replicas than configured; left as it is",
      );
    }
  }

  /** What the stream and the dead-letter stream hold against their size limits. */
  async streamSizes(): Promise<StreamSize[]> {
    if (this.connection.isClosed()) return [];
    return Promise.all(
      [this.namespace.stream, this.deadLetterStream].map(async (stream) => {
        const { state, config } = await this.jsm.streams.info(stream);
        return { stream, bytes: state.bytes, maxBytes: config.max_bytes };
      }),
    );
  }

  /** `dlq` in production: dead letters of durable `d` go to `dlq.d` in stream `DOCEX_DLQ`. */
  get deadLetterPrefix(): string {
    return deadLetterPrefixOf(this.namespace);
  }

  get deadLetterStream(): string {
    return `${this.namespace.stream}_DLQ`;
  }

  /** The subject on the wire for a canonical `docex.…` subject. */
  wireSubject(subject: string): string {
    return wireSubjectOf(subject, this.namespace);
  }

  private canonicalSubject(subject: string): string {
    const prefix = this.namespace.subjectPrefix;
    return subject.startsWith(`${prefix}.`) ? `${CANONICAL_PREFIX}${subject.slice(prefix.length)}` : subject;
  }

  async publish(subject: string, payload: unknown, options: PublishOptions): Promise<void> {
    const headers = natsHeaders();
    if (options.requestId) headers.set("x-request-id", options.requestId);
    for (const [name, value] of Object.entries(options.traceContext ?? {})) headers.set(name, value);
    await this.js.publish(this.wireSubject(subject), JSON.stringify(payload), { msgID: options.msgId, headers });
  }

  /**
   * Every instance receives every event on `subject` from now on (a core NATS subscription;
   * JetStream publishes reach it too). For caches that each instance keeps; events sent while
   * disconnected are missed, so `onReconnect` lets the caller drop what it cached.
   */
  broadcast(subject: string, handler: BroadcastHandler, onReconnect?: () => void): { stop(): void } {
    let stopped = false;
    const subscription = this.connection.subscribe(this.wireSubject(subject), {
      callback: (error, message) => {
        if (stopped) return;
        if (error) {
          this.logger.warn({ err: error, subject }, "broadcast subscription failed");
          onReconnect?.();
          return;
        }
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          payload = undefined;
        }
        handler(payload, this.canonicalSubject(message.subject));
      },
    });
    if (onReconnect) {
      (async () => {
        for await (const status of this.connection.status()) {
          if (stopped) break;
          if (status.type === "reconnect") onReconnect();
        }
      })().catch(() => undefined);
    }
    return {
      stop: () => {
        stopped = true;
        if (!subscription.isClosed()) subscription.unsubscribe();
      },
    };
  }

  /** Starts a durable consumer; messages published while it was down are delivered when it starts. */
  async subscribe(options: SubscriptionOptions): Promise<Subscription> {
    const rules = redeliveryRules(options);
    const maxAckPending = Math.max(options.maxInFlight ?? 256, 1);
    let stopping = false;
    const handle = async (message: JsMsg) => {
      const span = this.consumerSpan(message, options.durable);
      const delivered = { ...this.delivered(message), traceContext: carrierOf(span) };
      await withSpan(span, async () => {
        try {
          await options.handler(message.json(), delivered);
          message.ack();
          this.count(options.durable, "ok");
        } catch (error) {
          markFailed(span, error);
          // An event given back because the consumer stops (its handler was told to let go) is for the next instance
          // at once: not a failure to log or to delay.
          if (stopping) message.nak();
          else await this.failed(message, error, rules);
        } finally {
          span.end();
        }
      });
    };
    const concurrency = Math.max(options.concurrency ?? 1, 1);
    const limits = { maxAckPending, maxMessages: Math.min(maxAckPending, 256) };
    if (concurrency === 1) {
      const subscription = await this.consume(options, rules, limits, handle);
      this.consumers.push(subscription);
      return subscription;
    }
    // Every event in hand, waiting for a handler or in one, is kept from redelivery by one heartbeat for all of them.
    const held = new Set<JsMsg>();
    const waiting: JsMsg[] = [];
    const active = new Set<Promise<void>>();
    const heartbeat = setInterval(
      () => {
        for (const message of held) message.working();
      },
      Math.max(Math.floor((options.ackWaitMs ?? 30_000) / 3), 100),
    );
    heartbeat.unref();
    const startWaiting = () => {
      while (active.size < concurrency && waiting.length > 0) {
        const message = waiting.shift() as JsMsg;
        const running: Promise<void> = handle(message).finally(() => {
          held.delete(message);
          active.delete(running);
          startWaiting();
        });
        active.add(running);
      }
    };
    // The pump never waits here: NATS's max_ack_pending bounds what is in hand.
    const consumer = await this.consume(options, rules, limits, (message) => {
      held.add(message);
      waiting.push(message);
      startWaiting();
    });
    const subscription = {
      stop: async () => {
        await consumer.stop();
        stopping = true;
        for (const message of waiting.splice(0)) {
          held.delete(message);
          message.nak();
        }
        options.onStop?.();
        await Promise.all(active);
        clearInterval(heartbeat);
      },
    };
    this.consumers.push(subscription);
    return subscription;
  }

  /** Like `subscribe`, with a handler that takes the events that arrived meanwhile together (see `BatchSubscriptionOptions`). */
  async subscribeBatches(options: BatchSubscriptionOptions): Promise<Subscription> {
    const rules = redeliveryRules(options);
    const maxBatch = Math.max(options.maxBatch ?? 256, 1);
    const maxAckPending = Math.max(options.maxInFlight ?? maxBatch * 4, 1);
    const buffer: JsMsg[] = [];
    let working: Promise<void> | undefined;
    let stopped = false;
    const handle = async (batch: JsMsg[]) => {
      // A consumer span per event, a child of the span that published it; the batch's work runs in the event's span,
      // or, for several events, in a span linked to each of theirs.
      const spans = batch.map((message) => this.consumerSpan(message, options.durable));
      try {
        await this.handleBatch(batch, spans, options, rules);
      } finally {
        for (const span of spans) span.end();
      }
    };
    const work = () => {
      working ??= (async () => {
        while (buffer.length > 0 && !stopped) await handle(buffer.splice(0, maxBatch));
      })().finally(() => {
        working = undefined;
      });
    };
    const consumer = await this.consume(options, rules, { maxAckPending, maxMessages: maxBatch }, (message) => {
      // The pump only buffers; the handler works on whatever piled up while it was busy.
      buffer.push(message);
      work();
    });
    const subscription = {
      stop: async () => {
        stopped = true;
        await consumer.stop();
        await working;
      },
    };
    this.consumers.push(subscription);
    return subscription;
  }

  /**
   * Creates or updates the durable consumer and pumps its messages into `onMessage`, one after the other;
   * a broken pull is reopened. Its stop (idempotent) ends the pump after the message in hand.
   */
  private async consume(
    options: Omit<SubscriptionOptions, "handler">,
    rules: RedeliveryRules,
    limits: { maxAckPending: number; maxMessages: number },
    onMessage: (message: JsMsg) => Promise<void> | void,
  ): Promise<Subscription> {
    this.countFromZero(options.durable);
    const config = {
      durable_name: options.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.wireSubject(options.subject),
      max_deliver: rules.transient,
      ack_wait: (options.ackWaitMs ?? 30_000) * NANOS_PER_MS,
      max_ack_pending: limits.maxAckPending,
    };
    try {
      await this.jsm.consumers.add(this.namespace.stream, config);
    } catch {
      await this.jsm.consumers.update(this.namespace.stream, options.durable, {
        max_deliver: config.max_deliver,
        ack_wait: config.ack_wait,
        max_ack_pending: config.max_ack_pending,
      });
    }
    let stopped = false;
    let messages: ConsumerMessages | undefined;
    const open = async () => {
      const consumer = await this.js.consumers.get(this.namespace.stream, options.durable);
      // Short-lived pull requests: a request left behind by a consumer that died stops
      // taking messages within seconds, so its successor gets them without waiting for ack_wait.
      messages = await consumer.consume({ max_messages: limits.maxMessages, expires: 5_000 });
      return messages;
    };
    let current: ConsumerMessages | undefined = await open();
    const loop = (async () => {
      while (!stopped) {
        try {
          current ??= await open();
          if (stopped) break;
          for await (const message of current) await onMessage(message);
        } catch (error) {
          if (stopped) break;
          this.logger.warn({ err: error, durable: options.durable }, "consumer interrupted; resuming");
          await sleep(500);
        }
        current = undefined;
      }
    })();
    let stopping: Promise<void> | undefined;
    return {
      stop: () => {
        stopping ??= (async () => {
          stopped = true;
          await messages?.close();
          await loop;
        })();
        return stopping;
      },
    };
  }

  private delivered(message: JsMsg): DeliveredMessage {
    return {
      subject: this.canonicalSubject(message.subject),
      msgId: message.headers?.get("Nats-Msg-Id") || undefined,
      requestId: message.headers?.get("x-request-id") || undefined,
      deliveryCount: message.info.deliveryCount,
    };
  }

  /** A batch in its spans (see `subscribeBatches`): acked once the handler took all of it, else handled event by event. */
  private async handleBatch(batch: JsMsg[], spans: Span[], options: BatchSubscriptionOptions, rules: RedeliveryRules): Promise<void> {
    const events = batch.map((message, index) => this.batched(message, spans[index]!));
    const inBatchSpan = (work: () => Promise<void>) =>
      spans.length === 1
        ? withSpan(spans[0]!, work)
        : inSpan(
            `process ${this.canonicalSubject(batch[0]!.subject)} batch`,
            {
              kind: SpanKind.CONSUMER,
              links: spans.map((span) => ({ context: span.spanContext() })),
              attributes: { "messaging.batch.message_count": batch.length },
            },
            work,
          );
    try {
      await inBatchSpan(() => options.handler(events));
      for (const message of batch) message.ack();
      this.count(options.durable, "ok", batch.length);
      return;
    } catch (error) {
      if (batch.length === 1) {
        markFailed(spans[0]!, error);
        return this.failed(batch[0]!, error, rules);
      }
      this.logger.warn(
        { err: error, durable: options.durable, events: batch.length },
        "event batch failed; retrying its events one by one",
      );
    }
    for (const [index, message] of batch.entries()) {
      const span = spans[index]!;
      await withSpan(span, async () => {
        try {
          await options.handler([events[index]!]);
          message.ack();
          this.count(options.durable, "ok");
        } catch (error) {
          markFailed(span, error);
          await this.failed(message, error, rules);
        }
      });
    }
  }

  private batched(message: JsMsg, span: Span): BatchedEvent {
    let payload: unknown;
    try {
      payload = message.json();
    } catch {
      payload = undefined;
    }
    return { ...this.delivered(message), payload, traceContext: carrierOf(span) };
  }

  /** The span of one delivery of `message` to `durable`: a child of the trace context the message carries, if any. */
  private consumerSpan(message: JsMsg, durable: string): Span {
    const traceparent = message.headers?.get("traceparent");
    const tracestate = message.headers?.get("tracestate");
    const subject = this.canonicalSubject(message.subject);
    return startSpan(`process ${subject}`, {
      kind: SpanKind.CONSUMER,
      parent: contextOfCarrier(traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : undefined),
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "process",
        "messaging.destination.name": subject,
        "messaging.consumer.group.name": durable,
        "messaging.message.id": message.headers?.get("Nats-Msg-Id") || "",
        "messaging.message.delivery_count": message.info.deliveryCount,
      },
    });
  }

  /** A failed delivery: redelivered after a delay, or dead-lettered once past its limit (poison or transient). */
  private async failed(message: JsMsg, error: unknown, rules: RedeliveryRules): Promise<void> {
    const { durable } = rules;
    const attempt = message.info.deliveryCount;
    const transient = isTransientFailure(error);
    const retryDelay = rules.retryDelaysMs[Math.min(attempt - 1, rules.retryDelaysMs.length - 1)];
    if (attempt >= (transient ? rules.transient : rules.poison)) {
      if (!(await this.deadLetter(message, durable, error))) {
        // The dead-letter stream refused it (full, or NATS away): it stays here rather than being dropped.
        message.nak(retryDelay);
        this.count(durable, "retry");
        return;
      }
      this.logger.error({ err: error, durable, subject: message.subject }, "event dead-lettered");
      message.term();
      this.count(durable, "dead_letter");
      return;
    }
    this.logger.warn(
      { err: error, durable, attempt, transient },
      transient ? "event handling failed while a dependency is unavailable; will retry" : "event handling failed; will retry",
    );
    message.nak(retryDelay);
    this.count(durable, "retry");
  }

  /** Every outcome of a consumer is a series from its start, so that the first dead letter is an increase alerts see. */
  private countFromZero(durable: string): void {
    for (const outcome of CONSUMER_OUTCOMES) this.count(durable, outcome, 0);
  }

  private count(durable: string, outcome: string, events = 1): void {
    this.metrics?.eventsConsumed.inc({ consumer: durable, outcome }, events);
  }

  /** Copies the message to the dead-letter stream; false when that failed. */
  private async deadLetter(message: JsMsg, durable: string, error: unknown): Promise<boolean> {
    const headers = natsHeaders();
    headers.set("x-original-subject", this.canonicalSubject(message.subject));
    const requestId = message.headers?.get("x-request-id");
    if (requestId) headers.set("x-request-id", requestId);
    headers.set("x-error", errorSummaryOf(error).slice(0, 500));
    const msgId = message.headers?.get("Nats-Msg-Id");
    return this.js
      .publish(`${this.deadLetterPrefix}.${durable}`, message.data, { headers, ...(msgId ? { msgID: `${durable}:${msgId}` } : {}) })
      .then(
        () => true,
        (publishError: unknown) => {
          this.logger.error(
            { err: publishError, durable, subject: message.subject },
            "dead-letter publish failed; the event stays on the stream",
          );
          return false;
        },
      );
  }

  /**
   * Puts dead-lettered events back on the stream, oldest first, and removes them from the dead-letter stream:
   * those of one durable consumer, or all. For after an outage that outlasted a consumer's redeliveries (the
   * `DocexEventsDeadLettered` alert). An event goes back under its original subject with a new message id, so
   * every consumer of that subject sees it again; consumers are idempotent, so the ones that handled it before
   * change nothing. Returns what was replayed.
   */
  async replayDeadLetters(
    durable?: string,
    limit = 100_000,
  ): Promise<Array<{ durable: string; subject: string; msgId: string | undefined }>> {
    const prefix = `${this.deadLetterPrefix}.`;
    const filter = durable ? `${prefix}${durable}` : `${prefix}>`;
    const replayed: Array<{ durable: string; subject: string; msgId: string | undefined }> = [];
    // An ordered consumer reads the dead-letter stream once, oldest first, and leaves nothing behind.
    const consumer = await this.js.consumers.get(this.deadLetterStream, { filter_subjects: filter });
    let more = true;
    while (more && replayed.length < limit) {
      const batch = await consumer.fetch({ max_messages: Math.min(256, limit - replayed.length), expires: 1_000 });
      more = false;
      for await (const message of batch) {
        more = message.info.pending > 0;
        const subject = message.headers?.get("x-original-subject");
        if (!subject) {
          this.logger.warn({ seq: message.seq, subject: message.subject }, "dead letter without its original subject left in place");
          continue;
        }
        const headers = natsHeaders();
        const requestId = message.headers?.get("x-request-id");
        if (requestId) headers.set("x-request-id", requestId);
        headers.set("x-replayed-from", `${this.deadLetterStream}:${message.seq}`);
        await this.js.publish(this.wireSubject(subject), message.data, {
          headers,
          msgID: `replay:${this.deadLetterStream}:${message.seq}`,
        });
        await this.jsm.streams.deleteMessage(this.deadLetterStream, message.seq, false);
        const consumerName = message.subject.slice(prefix.length);
        // Dead letters carry `<durable>:<original message id>`.
        const msgId = message.headers?.get("Nats-Msg-Id")?.replace(`${consumerName}:`, "") || undefined;
        replayed.push({ durable: consumerName, subject, msgId });
      }
    }
    return replayed;
  }

  /** Readiness: the connection is up and the server answers. */
  async check(): Promise<void> {
    if (this.connection.isClosed()) throw new Error("NATS connection closed");
    await this.connection.flush();
  }

  /**
   * Stops every durable consumer: no new event is taken, and the ones in hand are handled to the end (acked or
   * redelivered). A service's stop calls it at SIGTERM, beside the HTTP and gRPC drain, so that no event is
   * started after it and none is cut off by the clients closing behind it. Events pulled but not begun go back
   * to the stream after their ack wait, to another instance.
   */
  async stopConsuming(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
  }

  async close(): Promise<void> {
    await this.stopConsuming();
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}

function redeliveryRules(options: Omit<SubscriptionOptions, "handler">): RedeliveryRules {
  const poison = options.maxDeliver ?? 10;
  return {
    durable: options.durable,
    poison,
    transient: Math.max(options.transientMaxDeliver ?? 200, poison),
    retryDelaysMs: options.retryDelaysMs ?? [200, 1_000, 5_000, 15_000, 30_000],
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The trace context of `span`, to hand on (undefined when tracing is off). */
function carrierOf(span: Span): TraceCarrier | undefined {
  return currentTraceCarrier(trace.setSpan(contextOfCarrier(undefined), span));
}

function markFailed(span: Span, error: unknown): void {
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

type LimitSettings = Pick<StreamConfig, "max_age" | "max_bytes" | "discard" | "duplicate_window">;

/** A stream's limits as JetStream takes them; the duplicate window may not outlast the messages. */
function limitSettings(limits: StreamLimits, duplicateWindowMs: number): LimitSettings {
  const windowMs = limits.maxAgeMs > 0 ? Math.min(duplicateWindowMs, limits.maxAgeMs) : duplicateWindowMs;
  return {
    max_age: limits.maxAgeMs * NANOS_PER_MS,
    max_bytes: limits.maxBytes ?? -1,
    // A full stream refuses what comes: the outbox keeps the events and its lag alerts, where `old` would
    // drop events that consumers have not seen yet without a word.
    discard: DiscardPolicy.New,
    duplicate_window: windowMs * NANOS_PER_MS,
  };
}

/** Says which NATS refused the connection, and why, in terms of the settings that fix it. */
function connectFailure(url: string, credentials: NatsCredentials, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  const authorization = /authoriz|authentic/i.test(reason) || /AUTHORIZATION/.test(String((error as { code?: unknown })?.code));
  const certificate = /certificate|self[- ]signed|verify|altnames/i.test(reason);
  const hint = authorization
    ? credentials.user
      ? `: NATS refused the user ${credentials.user} (NATS_USER) with NATS_PASSWORD`
      : credentials.token
        ? ": NATS refused NATS_TOKEN"
        : ": NATS requires authentication; set NATS_USER and NATS_PASSWORD (the service's own user of nats.conf), or set NATS_TOKEN (its authorization token)"
    : certificate
      ? credentials.tlsCaFile
        ? ": NATS's certificate does not match NATS_TLS_CA_FILE or the host of NATS_URL"
        : ": NATS serves TLS with a certificate this process cannot verify; set NATS_TLS_CA_FILE to its CA"
      : "";
  return new Error(`cannot connect to NATS at ${url}${hint} (${reason})`, { cause: error });
}
