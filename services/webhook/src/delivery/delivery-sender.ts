import { randomUUID } from "node:crypto";
import { pollDelay, wakeableWait } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import { contextOfCarrier, inSpan, type Span } from "@docex/kit/tracing";
import { DISABLED_WEBHOOK_ERROR } from "../domain/receiver-health.js";
import type { RetryPolicy } from "../domain/retry-policy.js";
import { parseRetryAfter } from "../domain/retry-policy.js";
import { requestSignatureHeaders, type SigningKeySet } from "../domain/signature.js";
import type { SigningKeys } from "../domain/signing-keys.js";
import { SIGNING_KEY_MISSING_REASON } from "../domain/signing-requirement.js";
import type { ClaimedDelivery, DeliveryOutcome, DeliveryStore } from "../store/delivery-store.js";
import type { DeliveryMetrics } from "./delivery-metrics.js";
import { EndpointBreakers } from "./endpoint-breakers.js";
import { parsedTarget } from "./parsed-targets.js";
import { type ReceiverTransport, USER_AGENT, verdictOf } from "./receiver-transport.js";

export interface DeliverySenderOptions {
  store: DeliveryStore;
  transport: ReceiverTransport;
  breakers: EndpointBreakers;
  keys: Pick<SigningKeys, "open">;
  retry: RetryPolicy;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** Requests in flight at most, over all receivers. */
  maxInFlight: number;
  /** Requests in flight at most for one organization's receivers, so that one tenant's slow receivers leave slots for the others. */
  maxInFlightPerOrganization: number;
  /** How often due deliveries are looked for when nothing wakes the sender. */
  pollIntervalMs: number;
  leaseMs: number;
  /** A 2xx within this time is a success. */
  timeoutMs: number;
  /** Bytes of each answer recorded with its attempt. */
  excerptBytes?: number;
}

const DEPTH_SAMPLE_MS = 5_000;

/** What one attempt did, as recorded with the delivery. */
type AttemptOutcome = NonNullable<DeliveryOutcome["attempt"]>;

/**
 * Sends due deliveries. It claims them in batches (`FOR UPDATE SKIP LOCKED` with a lease, so replicas never
 * hold the same delivery), sends each through its receiver's circuit breaker, and records the outcomes in
 * batches: one statement for everything that finished meanwhile. It is woken right after the consumer
 * commits new deliveries and by manual retries; a poll finds retries that came due and leases that expired.
 */
export class DeliverySender {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private inFlight = 0;
  private readonly inFlightByOrganization = new Map<string, number>();
  private waitingForSlots = false;
  private readonly sends = new Set<Promise<void>>();
  private outcomes: DeliveryOutcome[] = [];
  private flushing: Promise<void> | undefined;
  private depthTimer: NodeJS.Timeout | undefined;
  private readonly giveUpAfterMs: number;

  constructor(private readonly options: DeliverySenderOptions) {
    // While a breaker stays open, deliveries wait without attempts; they still fail once the whole retry
    // schedule (at its longest jitter) has passed, so that none waits forever.
    const window = options.retry.maxAttempts - 1;
    let totalSeconds = 0;
    for (let attempt = 1; attempt <= window; attempt++) totalSeconds += options.retry.scheduledDelaySeconds(attempt);
    this.giveUpAfterMs = totalSeconds * 1_200 + options.leaseMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    this.depthTimer = setInterval(() => void this.sampleDepth(), DEPTH_SAMPLE_MS);
    this.depthTimer.unref();
    void this.sampleDepth();
  }

  /** New deliveries are due (the consumer committed some, or someone asked for a retry). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Requests that could start now. */
  freeSlots(): number {
    return this.running ? this.options.maxInFlight - this.inFlight : 0;
  }

  /**
   * Deliveries claimed for this sender (by a claim, or when they were created): sent at once. Any that find
   * no free slot are released (due now, no attempt), so that no lease runs out in a queue here while another
   * sender could have sent them.
   */
  adopt(deliveries: ClaimedDelivery[]): void {
    for (const delivery of deliveries) {
      if (this.freeSlots() > 0 && this.organizationHasRoom(delivery.organizationId)) this.launch(delivery);
      else this.push({ id: delivery.id, leaseToken: delivery.leaseToken, status: "pending", delayMs: 0, error: null });
    }
  }

  /** Stops claiming, lets attempts on the wire finish and records them. */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.depthTimer);
    this.wake();
    await this.loop;
    await Promise.all(this.sends);
    await this.flush();
    await this.options.transport.close();
    this.options.breakers.shutdown();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.woken = false;
      const free = this.options.maxInFlight - this.inFlight;
      let claimed = 0;
      if (free > 0) {
        try {
          const batch = await this.options.store.claimDue(free, randomUUID(), this.options.leaseMs, {
            perOrganization: this.options.maxInFlightPerOrganization,
            inFlight: this.inFlightByOrganization,
          });
          claimed = batch.length;
          // Deliveries adopted meanwhile may have taken some of the slots.
          this.adopt(batch);
          failures = 0;
        } catch (error) {
          failures += 1;
          this.options.logger.warn({ err: error, failures }, "could not claim due deliveries; retrying");
        }
      }
      if (!this.running) break;
      // No free slot, or a full batch that may have left more behind: look again as soon as slots free up.
      this.waitingForSlots = free <= 0 || (claimed > 0 && claimed >= free);
      if (failures === 0 && this.woken && !this.waitingForSlots) continue;
      await wakeableWait(pollDelay(this.options.pollIntervalMs, failures), (wake) => {
        this.wakeUp = wake;
      });
      this.wakeUp = undefined;
    }
  }

  private organizationHasRoom(organizationId: string): boolean {
    return (this.inFlightByOrganization.get(organizationId) ?? 0) < this.options.maxInFlightPerOrganization;
  }

  private launch(delivery: ClaimedDelivery): void {
    const { organizationId } = delivery;
    this.inFlight += 1;
    this.inFlightByOrganization.set(organizationId, (this.inFlightByOrganization.get(organizationId) ?? 0) + 1);
    const send: Promise<void> = this.attempt(delivery)
      .catch((error: unknown) => {
        // The lease stays; the delivery is due again when it expires.
        this.options.logger.error({ err: error, delivery_id: delivery.id }, "delivery attempt could not be made");
      })
      .finally(() => {
        this.inFlight -= 1;
        const left = (this.inFlightByOrganization.get(organizationId) ?? 1) - 1;
        if (left > 0) this.inFlightByOrganization.set(organizationId, left);
        else this.inFlightByOrganization.delete(organizationId);
        const wasFull = left + 1 >= this.options.maxInFlightPerOrganization;
        this.sends.delete(send);
        if (this.waitingForSlots && this.inFlight <= this.options.maxInFlight / 2) {
          this.waitingForSlots = false;
          this.wake();
        } else if (wasFull) {
          // The organization's deliveries were left out of claims while its slots were full: they may go now.
          this.wake();
        }
      });
    this.sends.add(send);
  }

  /** The keys that sign the delivery: none with signing off or no key; the previous one too during its grace window. */
  private keysOf(delivery: ClaimedDelivery): SigningKeySet | undefined {
    if (delivery.signatureVerification !== "enabled" || !delivery.sealedKey || !delivery.kekFingerprint) return undefined;
    const { organizationId } = delivery;
    const current = this.options.keys.open({ organizationId, sealedKey: delivery.sealedKey, kekFingerprint: delivery.kekFingerprint });
    if (!delivery.previousSealedKey || !delivery.previousKekFingerprint) return { current };
    const previous = this.options.keys.open({
      organizationId,
      sealedKey: delivery.previousSealedKey,
      kekFingerprint: delivery.previousKekFingerprint,
    });
    return { current, previous };
  }

  /**
   * One attempt, as a span of the trace of the event's handling (stored with the delivery), so that a retry an hour
   * later still shows which request caused it. The request to the receiver is its child and carries its traceparent.
   */
  private attempt(delivery: ClaimedDelivery): Promise<void> {
    return inSpan(
      `deliver ${delivery.type}`,
      {
        ...(delivery.traceContext ? { parent: contextOfCarrier(delivery.traceContext) } : {}),
        attributes: {
          "docex.delivery.id": delivery.id,
          "docex.webhook.id": delivery.webhookId,
          "docex.delivery.attempt": delivery.attempt,
          "docex.delivery.manual": delivery.manual,
          "server.address": parsedTarget(delivery.url).host,
        },
      },
      (span) => this.attemptInSpan(delivery, span),
    );
  }

  private async attemptInSpan(delivery: ClaimedDelivery, span: Span): Promise<void> {
    const { transport, breakers, metrics } = this.options;
    if (delivery.webhookStatus === "disabled") {
      // Disabled after this delivery was claimed or created: nothing is sent.
      this.push({
        id: delivery.id,
        leaseToken: delivery.leaseToken,
        status: "failed",
        delayMs: 0,
        error: DISABLED_WEBHOOK_ERROR,
      });
      return;
    }
    const keys = this.keysOf(delivery);
    if (delivery.signatureVerification === "enabled" && !keys) {
      // Signing on, no key (a row from before create and PATCH refused that): fail closed, never send unsigned. The
      // attempt fails and is retried on the schedule, so a key created meanwhile signs the next one.
      this.failUnsent(delivery, SIGNING_KEY_MISSING_REASON);
      return;
    }
    const startedAt = new Date();
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...requestSignatureHeaders(delivery.id, Math.floor(startedAt.getTime() / 1000), delivery.body, keys),
    };
    const run = await breakers.run(
      EndpointBreakers.keyOf(delivery.url),
      (signal) =>
        transport.post(delivery.url, delivery.body, headers, {
          timeoutMs: this.options.timeoutMs,
          excerptBytes: this.options.excerptBytes ?? 1024,
          signal,
        }),
      (result) => verdictOf(result),
    );
    if (run.kind === "open") {
      span.setAttributes({ "docex.breaker.state": "open", "docex.delivery.outcome": "deferred" });
      this.defer(delivery, run.retryAt);
      return;
    }
    const result = run.result;
    const succeeded = !verdictOf(result).failed;
    span.setAttributes({
      "docex.delivery.outcome": succeeded ? "succeeded" : delivery.attempt < delivery.maxAttempts ? "retry" : "failed",
      ...(result.statusCode === null ? {} : { "http.response.status_code": result.statusCode }),
      ...(result.error ? { "error.type": result.error } : {}),
    });
    metrics.attemptSeconds[succeeded ? "success" : "failure"].observe(result.durationMs / 1000);
    if (delivery.attempt === 1) metrics.eventToAnswer.observe(Math.max(0, Date.now() - delivery.eventOccurredAtMs) / 1000);
    const error = succeeded ? null : (result.error ?? `receiver answered HTTP ${result.statusCode}`);
    const attempt = {
      number: delivery.attempt,
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error,
      // A multi-byte character cut at 1 KiB becomes U+FFFD rather than an error; so does a NUL, which Postgres text cannot hold
      // (one such answer would otherwise fail the record of every outcome in its batch).
      responseExcerpt: result.body ? result.body.toString("utf8").replaceAll("\u0000", "\uFFFD") : null,
      succeeded,
      manual: delivery.manual,
    };
    if (error === null) {
      metrics.outcome.succeeded.inc();
      this.push({ id: delivery.id, leaseToken: delivery.leaseToken, attempt, status: "succeeded", delayMs: 0, error: null });
      return;
    }
    const retryAfter = result.statusCode === null ? undefined : parseRetryAfter(result.headers["retry-after"], new Date());
    this.pushFailure(delivery, attempt, error, retryAfter);
  }

  /** A failed attempt that sent nothing (and says why); retried on the schedule like any other failure. */
  private failUnsent(delivery: ClaimedDelivery, error: string): void {
    const attempt = {
      number: delivery.attempt,
      startedAt: new Date(),
      durationMs: 0,
      statusCode: null,
      error,
      responseExcerpt: null,
      succeeded: false,
      manual: delivery.manual,
    };
    this.pushFailure(delivery, attempt, error, undefined);
  }

  /** A failed attempt: the delivery is retried on the schedule (or after the receiver's Retry-After), or fails for good. */
  private pushFailure(delivery: ClaimedDelivery, attempt: AttemptOutcome, error: string, retryAfterSeconds: number | undefined): void {
    const now = new Date();
    const next = this.options.retry.afterFailure(delivery.attempt, delivery.maxAttempts, now, retryAfterSeconds);
    this.options.metrics.outcome[next.kind === "retry" ? "retry_scheduled" : "failed"].inc();
    this.push({
      id: delivery.id,
      leaseToken: delivery.leaseToken,
      attempt,
      status: next.kind === "retry" ? "pending" : "failed",
      delayMs: next.kind === "retry" ? next.at.getTime() - now.getTime() : 0,
      error,
    });
  }

  /** Nothing was sent: the receiver's breaker is open. The delivery waits for the half-open probe. */
  private defer(delivery: ClaimedDelivery, retryAt: number): void {
    this.options.metrics.outcome.deferred.inc();
    const error = "receiver unavailable: its circuit breaker is open";
    if (Date.now() - delivery.createdAtMs > this.giveUpAfterMs) {
      this.push({ id: delivery.id, leaseToken: delivery.leaseToken, status: "failed", delayMs: 0, error });
      return;
    }
    // Spread waiting deliveries a little so they do not all come back in the same instant.
    const delayMs = Math.max(0, retryAt - Date.now()) + Math.floor(Math.random() * 250);
    this.push({ id: delivery.id, leaseToken: delivery.leaseToken, status: "pending", delayMs, error });
  }

  private push(outcome: DeliveryOutcome): void {
    this.outcomes.push(outcome);
    void this.flush();
  }

  /** Writes every outcome gathered meanwhile in one statement; under load, batches grow by themselves. */
  private flush(): Promise<void> {
    this.flushing ??= (async () => {
      let failures = 0;
      while (this.outcomes.length > 0) {
        const batch = this.outcomes;
        this.outcomes = [];
        try {
          await this.options.store.record(batch);
          failures = 0;
        } catch (error) {
          failures += 1;
          this.options.logger.error({ err: error, failures, outcomes: batch.length }, "could not record delivery outcomes");
          // Past the lease the deliveries are due again anyway; until then, keep trying.
          if (failures * 1_000 < this.options.leaseMs) {
            this.outcomes.unshift(...batch);
            await new Promise((resolve) => setTimeout(resolve, 1_000));
          }
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      // An outcome pushed between the loop's last look and here would wait for the next push otherwise.
      if (this.outcomes.length > 0) void this.flush();
    });
    return this.flushing;
  }

  private async sampleDepth(): Promise<void> {
    try {
      const { due, pending } = await this.options.store.depth();
      this.options.metrics.due.set(due);
      this.options.metrics.pending.set(pending);
    } catch (error) {
      this.options.logger.debug({ err: error }, "could not sample the delivery queue");
    }
  }
}
