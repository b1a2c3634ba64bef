import { prepared, type Sql } from "@docex/kit/db";
import type { TraceCarrier } from "@docex/kit/tracing";
import type { Fanout } from "../domain/delivery-payloads.js";
import { DISABLED_WEBHOOK_ERROR } from "../domain/receiver-health.js";
import type {
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  Page,
  Paged,
  SignatureVerification,
  WebhookStatus,
  WebhookType,
} from "../domain/records.js";

/** A delivery a sender holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  leaseToken: string;
  webhookId: string;
  organizationId: string;
  type: WebhookType;
  body: string;
  url: string;
  signatureVerification: SignatureVerification;
  /** The organization's signing key as stored (sealed); null when it has none. */
  sealedKey: string | null;
  kekFingerprint: string | null;
  /** The key before the last rotation while its grace window lasts (it signs too); else null. */
  previousSealedKey: string | null;
  previousKekFingerprint: string | null;
  /** A disabled webhook's deliveries are failed without being sent. */
  webhookStatus: WebhookStatus;
  /** The number this attempt will have (1-based). */
  attempt: number;
  maxAttempts: number;
  manual: boolean;
  /** Milliseconds since the epoch (numbers: cheaper to read than timestamps on the hot path). */
  createdAtMs: number;
  eventOccurredAtMs: number;
  /** The trace of the event's handling (W3C trace context); null for a delivery made outside a trace. */
  traceContext: TraceCarrier | null;
}

export interface AttemptStats {
  attempts: number;
  succeeded: number;
  /** Null without attempts. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** The webhook's run of failures as of the same snapshot as the attempts (both are written by one statement). */
  lastSuccessAt: Date | null;
  failingSince: Date | null;
}

/** How an attempt, or a deferral without an attempt, ends; recorded in batches. */
export interface DeliveryOutcome {
  id: string;
  leaseToken: string;
  /** Undefined when nothing was sent (an open circuit breaker deferred it). */
  attempt?: Omit<DeliveryAttempt, "manual"> & { manual: boolean };
  status: DeliveryStatus;
  /** For `pending`: milliseconds from now until the next attempt is due. */
  delayMs: number;
  error: string | null;
}

const DELIVERY_COLUMNS = `id, webhook_id AS "webhookId", event_id AS "eventId", type, status, body, attempts AS "attemptCount",
  max_attempts AS "maxAttempts", CASE WHEN status = 'pending' THEN next_attempt_at END AS "nextAttemptAt",
  (lease_token IS NOT NULL AND next_attempt_at > now()) AS "inFlight", last_error AS "lastError",
  created_at AS "createdAt", updated_at AS "updatedAt", completed_at AS "completedAt"`;

/** What a sender needs of the deliveries in the CTE `rows` (just claimed or just created), with their webhook and signing key. */
const claimedSelect = (
  rows: string,
) => `SELECT c.id, c.lease_token AS "leaseToken", c.webhook_id AS "webhookId", w.organization_id AS "organizationId", c.type, c.body,
    w.url, w.signature_verification AS "signatureVerification", k.sealed_key AS "sealedKey", k.kek_fingerprint AS "kekFingerprint",
    CASE WHEN k.previous_valid_until > now() THEN k.previous_sealed_key END AS "previousSealedKey",
    CASE WHEN k.previous_valid_until > now() THEN k.previous_kek_fingerprint END AS "previousKekFingerprint",
    w.status AS "webhookStatus", c.attempts + 1 AS attempt, c.max_attempts AS "maxAttempts", c.manual_retry AS manual,
    (extract(epoch FROM c.created_at) * 1000)::float8 AS "createdAtMs", (extract(epoch FROM c.event_occurred_at) * 1000)::float8 AS "eventOccurredAtMs",
    c.trace_context AS "traceContext"
  FROM ${rows} c
  JOIN webhooks w ON w.id = c.webhook_id
  LEFT JOIN signing_keys k ON k.organization_id = w.organization_id
  ORDER BY c.next_attempt_at`;

/** The CTE `inserted` of the fan-out: the deliveries of a batch of events ($1–$8), leased to $10 for $11 ms when $10 is given. */
const fanOutInsert = `WITH events AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::uuid[], $6::uuid[], $7::uuid[], $8::uuid[], $12::text[])
      AS e(event_id, type, body, occurred_at, document_id, queue_id, workspace_id, organization_id, trace_context)
  ), inserted AS (
    INSERT INTO deliveries (webhook_id, event_id, type, body, max_attempts, next_attempt_at, lease_token, event_occurred_at, trace_context)
    SELECT w.id, e.event_id, e.type, e.body, $9,
      CASE WHEN $10::uuid IS NULL THEN now() ELSE now() + make_interval(secs => $11::double precision / 1000) END, $10::uuid, e.occurred_at,
      e.trace_context::jsonb
    FROM events e
    JOIN webhooks w ON w.type = e.type AND w.status = 'active'
      AND w.entity_id IN (e.document_id, e.queue_id, e.workspace_id, e.organization_id)
      AND ((w.entity_type = 'document' AND w.entity_id = e.document_id) OR (w.entity_type = 'queue' AND w.entity_id = e.queue_id)
        OR (w.entity_type = 'workspace' AND w.entity_id = e.workspace_id) OR (w.entity_type = 'organization' AND w.entity_id = e.organization_id))
    ON CONFLICT (event_id, webhook_id) DO NOTHING
    RETURNING id, lease_token, webhook_id, type, body, attempts, max_attempts, manual_retry, created_at, event_occurred_at, next_attempt_at,
      trace_context
  )`;

// The sender's statements run for every batch of deliveries: prepared on each connection (kit `Prepared`). Their best
// plan does not depend on the values: every row is found by its key, the due ones by the partial index.
const FAN_OUT = prepared(`${fanOutInsert} SELECT type, count(*)::int AS created FROM inserted GROUP BY type`);
const FAN_OUT_LEASED = prepared(`${fanOutInsert} ${claimedSelect("inserted")}`);
/**
 * Due deliveries, shared out by organization: none of an organization in $4 (its slots are full), at most $6 minus its
 * requests in flight ($7/$8) of any other, taken in turns (every organization's first, then every second, …) from the
 * $5 due soonest, so one organization's backlog or hung receivers never hold everyone's slots.
 */
const CLAIM_DUE = prepared(
  `WITH candidates AS (
     SELECT d.id, d.next_attempt_at, w.organization_id FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND w.organization_id <> ALL ($4::uuid[])
     ORDER BY d.next_attempt_at
     LIMIT $5
     FOR UPDATE OF d SKIP LOCKED
   ), turns AS (
     SELECT c.id, c.next_attempt_at, c.organization_id,
       row_number() OVER (PARTITION BY c.organization_id ORDER BY c.next_attempt_at) AS turn
     FROM candidates c
   ), due AS (
     SELECT t.id FROM turns t
     LEFT JOIN unnest($7::uuid[], $8::int[]) AS busy(organization_id, in_flight) ON busy.organization_id = t.organization_id
     WHERE t.turn <= $6 - COALESCE(busy.in_flight, 0)
     ORDER BY t.turn, t.next_attempt_at
     LIMIT $1
   ), claimed AS (
     UPDATE deliveries d SET lease_token = $2, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000),
       updated_at = now()
     FROM due WHERE d.id = due.id
     RETURNING d.id, d.lease_token, d.webhook_id, d.type, d.body, d.attempts, d.max_attempts, d.manual_retry, d.created_at,
       d.event_occurred_at, d.next_attempt_at, d.trace_context
   )
   ${claimedSelect("claimed")}`,
);
const RECORD_OUTCOMES = prepared(
  `WITH r AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::boolean[], $4::int[], $5::timestamptz[], $6::int[], $7::int[], $8::text[],
                          $9::text[], $10::boolean[], $11::boolean[], $12::text[], $13::bigint[])
       AS t(id, lease_token, attempted, number, started_at, duration_ms, status_code, error, excerpt, succeeded, manual, status, delay_ms)
   ), live AS (
     SELECT d.id, d.webhook_id, (d.lease_token = r.lease_token) AS owned, COALESCE(w.status = 'disabled', false) AS disabled
     FROM deliveries d JOIN r ON r.id = d.id LEFT JOIN webhooks w ON w.id = d.webhook_id FOR UPDATE OF d
   ), attempts AS (
     INSERT INTO delivery_attempts (delivery_id, webhook_id, number, started_at, duration_ms, status_code, error, response_excerpt,
                                    succeeded, manual)
     SELECT r.id, live.webhook_id, r.number, r.started_at, r.duration_ms, r.status_code, r.error, r.excerpt, r.succeeded, r.manual
     FROM r JOIN live ON live.id = r.id WHERE r.attempted
     ON CONFLICT (delivery_id, number) DO NOTHING
     RETURNING webhook_id, started_at, succeeded
   ), runs AS (
     -- Per webhook: its last success in this batch, and the first failure after it (or of the batch, if none succeeded).
     SELECT webhook_id, max(started_at) FILTER (WHERE succeeded) AS last_ok, array_agg(started_at) FILTER (WHERE NOT succeeded) AS failures
     FROM attempts GROUP BY webhook_id
   ), health AS (
     UPDATE webhooks w SET
       last_success_at = GREATEST(w.last_success_at, runs.last_ok),
       failing_since = CASE
         WHEN runs.last_ok IS NULL THEN COALESCE(w.failing_since, (SELECT min(f) FROM unnest(runs.failures) f))
         ELSE (SELECT min(f) FROM unnest(runs.failures) f WHERE f > runs.last_ok)
       END
     FROM runs WHERE w.id = runs.webhook_id
     RETURNING w.id
   )
   UPDATE deliveries d SET
     -- A retry of a webhook disabled while this attempt was under way is given up now, not at its next claim.
     status = CASE WHEN r.status = 'pending' AND live.disabled THEN 'failed' ELSE r.status END,
     attempts = CASE WHEN r.attempted THEN GREATEST(d.attempts, r.number) ELSE d.attempts END,
     next_attempt_at = CASE WHEN r.status = 'pending' AND NOT live.disabled
                       THEN now() + make_interval(secs => r.delay_ms::double precision / 1000) END,
     lease_token = NULL,
     manual_retry = CASE WHEN r.attempted THEN false ELSE d.manual_retry END,
     last_error = CASE WHEN r.status = 'succeeded' THEN NULL WHEN r.status = 'pending' AND live.disabled THEN $14 ELSE r.error END,
     updated_at = now(),
     completed_at = CASE WHEN r.status = 'pending' AND NOT live.disabled THEN NULL ELSE now() END
   FROM r JOIN live ON live.id = r.id AND live.owned
   WHERE d.id = r.id`,
);

function fanOutBind(fanouts: Fanout[], maxAttempts: number, lease: { token: string; ms: number } | undefined): unknown[] {
  // An array per column: cheaper to serialise than one JSON document, which V8 writes slowly once it passes about 128 KB.
  const column = <T>(pick: (fanout: Fanout) => T) => fanouts.map(pick);
  return [
    column((f) => f.eventId),
    column((f) => f.type),
    column((f) => f.body),
    column((f) => f.occurredAt),
    column((f) => f.targets.documentId),
    column((f) => f.targets.queueId),
    column((f) => f.targets.workspaceId),
    column((f) => f.targets.organizationId),
    maxAttempts,
    lease?.token ?? null,
    lease?.ms ?? 0,
    column((f) => (f.traceContext ? JSON.stringify(f.traceContext) : null)),
  ];
}

/** Deliveries and their attempts; answers are plain objects. */
export class DeliveryStore {
  constructor(private readonly sql: Sql) {}

  /**
   * One delivery per matching webhook for each event, in one statement that commits whole and is idempotent
   * on (event id, webhook id): a redelivered event adds nothing. The new deliveries are due now; answers how
   * many were created, by type.
   */
  async fanOut(fanouts: Fanout[], maxAttempts: number): Promise<Array<{ type: Fanout["type"]; created: number }>> {
    if (fanouts.length === 0) return [];
    return this.sql.rows<{ type: Fanout["type"]; created: number }>(FAN_OUT, fanOutBind(fanouts, maxAttempts, undefined));
  }

  /** As fanOut, but the new deliveries are claimed by the caller at birth: answered with what sending them needs. */
  fanOutLeased(fanouts: Fanout[], maxAttempts: number, lease: { token: string; ms: number }): Promise<ClaimedDelivery[]> {
    if (fanouts.length === 0) return Promise.resolve([]);
    return this.sql.rows<ClaimedDelivery>(FAN_OUT_LEASED, fanOutBind(fanouts, maxAttempts, lease));
  }

  /**
   * Takes up to `limit` due deliveries for `leaseMs`. `FOR UPDATE SKIP LOCKED`: replicas claiming at the same
   * moment take different rows. The lease is the delivery's next_attempt_at, so a sender that dies leaves
   * the delivery due again when it runs out.
   */
  /**
   * Claims up to `limit` due deliveries, at most `perOrganization` in flight for any organization once these are sent
   * (`inFlight`: this sender's requests on the wire, per organization). Looks `limit * 4` deliveries ahead.
   */
  claimDue(
    limit: number,
    leaseToken: string,
    leaseMs: number,
    fairness: { perOrganization: number; inFlight: ReadonlyMap<string, number> },
  ): Promise<ClaimedDelivery[]> {
    const busy = [...fairness.inFlight];
    const full = busy.filter(([, count]) => count >= fairness.perOrganization).map(([organizationId]) => organizationId);
    return this.sql.rows<ClaimedDelivery>(CLAIM_DUE, [
      limit,
      leaseToken,
      leaseMs,
      full,
      limit * 4,
      fairness.perOrganization,
      busy.map(([organizationId]) => organizationId),
      busy.map(([, count]) => count),
    ]);
  }

  /**
   * Records outcomes in one statement. Attempts are recorded for every delivery that still exists (its
   * webhook may have been deleted meanwhile); the delivery's state changes only while the lease is still
   * the sender's, so a sender that lost its lease cannot overwrite what the next one decided. A retry whose
   * webhook was disabled meanwhile is recorded as failed, so a disabled webhook has no pending delivery.
   */
  async record(outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const column = <T>(pick: (outcome: DeliveryOutcome) => T) => outcomes.map(pick);
    await this.sql.run(RECORD_OUTCOMES, [
      column((o) => o.id),
      column((o) => o.leaseToken),
      column((o) => o.attempt !== undefined),
      column((o) => o.attempt?.number ?? 0),
      column((o) => o.attempt?.startedAt ?? null),
      column((o) => o.attempt?.durationMs ?? 0),
      column((o) => o.attempt?.statusCode ?? null),
      column((o) => o.error),
      column((o) => o.attempt?.responseExcerpt ?? null),
      column((o) => o.attempt?.succeeded ?? false),
      column((o) => o.attempt?.manual ?? false),
      column((o) => o.status),
      column((o) => Math.max(0, Math.round(o.delayMs))),
      DISABLED_WEBHOOK_ERROR,
    ]);
  }

  /** A webhook's deliveries, newest first, each with its attempts in order. */
  async deliveriesOf(webhookId: string, statuses: DeliveryStatus[] | undefined, page: Page): Promise<Paged<Delivery>> {
    const filter = statuses?.length ? statuses : null;
    const [rows, count] = await Promise.all([
      this.sql.rows<Omit<Delivery, "attempts">>(
        `SELECT ${DELIVERY_COLUMNS} FROM deliveries
         WHERE webhook_id = $1 AND ($2::text[] IS NULL OR status = ANY ($2::text[]))
         ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
        [webhookId, filter, page.pageSize, (page.page - 1) * page.pageSize],
      ),
      this.sql.one<{ total: number }>(
        `SELECT count(*)::int AS total FROM deliveries WHERE webhook_id = $1 AND ($2::text[] IS NULL OR status = ANY ($2::text[]))`,
        [webhookId, filter],
      ),
    ]);
    const attempts = await this.attemptsOf(rows.map((row) => row.id));
    return { items: rows.map((row) => ({ ...row, attempts: attempts.get(row.id) ?? [] })), total: count?.total ?? 0 };
  }

  async findDelivery(webhookId: string, deliveryId: string): Promise<Delivery | undefined> {
    const row = await this.sql.one<Omit<Delivery, "attempts">>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1 AND webhook_id = $2`,
      [deliveryId, webhookId],
    );
    if (!row) return undefined;
    return { ...row, attempts: (await this.attemptsOf([row.id])).get(row.id) ?? [] };
  }

  private async attemptsOf(deliveryIds: string[]): Promise<Map<string, DeliveryAttempt[]>> {
    const byDelivery = new Map<string, DeliveryAttempt[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const rows = await this.sql.rows<DeliveryAttempt & { deliveryId: string }>(
      `SELECT delivery_id AS "deliveryId", number, started_at AS "startedAt", duration_ms AS "durationMs", status_code AS "statusCode",
         error, response_excerpt AS "responseExcerpt", succeeded, manual
       FROM delivery_attempts WHERE delivery_id = ANY ($1::uuid[]) ORDER BY delivery_id, number`,
      [deliveryIds],
    );
    for (const { deliveryId, ...attempt } of rows) {
      const list = byDelivery.get(deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(deliveryId, list);
    }
    return byDelivery;
  }

  /**
   * Makes a delivery due now for one more attempt, whatever its status; a delivery that had no attempts
   * left gets exactly one. `in_flight` while a sender holds a live lease on it.
   */
  async requestRetry(webhookId: string, deliveryId: string): Promise<"requested" | "in_flight" | "not_found"> {
    const updated = await this.sql.rows(
      `UPDATE deliveries SET status = 'pending', next_attempt_at = now(), lease_token = NULL, manual_retry = true,
         max_attempts = GREATEST(max_attempts, attempts + 1), completed_at = NULL, updated_at = now()
       WHERE id = $1 AND webhook_id = $2 AND (lease_token IS NULL OR next_attempt_at <= now())
       RETURNING id`,
      [deliveryId, webhookId],
    );
    if (updated.length) return "requested";
    const exists = await this.sql.one(`SELECT id FROM deliveries WHERE id = $1 AND webhook_id = $2`, [deliveryId, webhookId]);
    return exists ? "in_flight" : "not_found";
  }

  /** A webhook's attempts in the last `windowMs`: how many, how many succeeded, and their latency percentiles. */
  /** One statement, so that the attempts and the run of failures agree (a sender records both in one). */
  async attemptStats(webhookId: string, windowMs: number): Promise<AttemptStats> {
    const row = await this.sql.one<AttemptStats>(
      `SELECT count(*)::int AS attempts, (count(*) FILTER (WHERE succeeded))::int AS succeeded,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS "p50Ms",
         percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms) AS "p99Ms",
         (SELECT last_success_at FROM webhooks WHERE id = $1) AS "lastSuccessAt",
         (SELECT failing_since FROM webhooks WHERE id = $1) AS "failingSince"
       FROM delivery_attempts
       WHERE webhook_id = $1 AND started_at > now() - make_interval(secs => $2::double precision / 1000)`,
      [webhookId, windowMs],
    );
    return row ?? { attempts: 0, succeeded: 0, p50Ms: null, p99Ms: null, lastSuccessAt: null, failingSince: null };
  }

  /** Pending deliveries, and those of them due now and not held by a sender. */
  async depth(): Promise<{ due: number; pending: number }> {
    const row = await this.sql.one<{ due: number; pending: number }>(
      `SELECT count(*) FILTER (WHERE next_attempt_at <= now())::int AS due, count(*)::int AS pending FROM deliveries WHERE status = 'pending'`,
    );
    return row ?? { due: 0, pending: 0 };
  }
}
