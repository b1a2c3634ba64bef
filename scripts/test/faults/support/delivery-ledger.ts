import { createHmac, timingSafeEqual } from "node:crypto";
import type { RecordedRequest } from "@docex/testkit";

export interface DeliveryTally {
  /** Status changes made (events that must arrive). */
  expected: number;
  /** Distinct deliveries (`x-service-delivery-id`) that arrived for them. */
  delivered: number;
  /** Every POST that arrived for them, repeats included. */
  receipts: number;
  /** Receipts beyond the first of their delivery: the at-least-once repeats. */
  duplicates: number;
  /** Changes made that no delivery stands for. */
  missing: number;
  /** Deliveries that stand for no change made. */
  extra: number;
  badSignatures: number;
  /** A few missing ones, `document: status ×n`, for the failure message. */
  missingExamples: string[];
}

/**
 * Compares the status changes made with what the receiver got. A document passes through the same status
 * several times, so each delivery counts once (by its delivery id, the same on every retry) and the statuses
 * of a document's deliveries must cover the statuses it was moved to, as many times each.
 */
export function tallyDeliveries(
  requests: readonly RecordedRequest[],
  changes: ReadonlyMap<string, string[]>,
  signingKey: string,
): DeliveryTally {
  const deliveries = new Map<string, { documentId: string; status: string }>();
  let receipts = 0;
  let badSignatures = 0;
  for (const request of requests) {
    const body = request.body as { document_id?: string; status?: string; webhook_event?: string } | undefined;
    if (body?.webhook_event !== "document_status_changed" || !body.document_id || !changes.has(body.document_id)) continue;
    receipts++;
    if (!signedWith(signingKey, request)) badSignatures++;
    const deliveryId = String(request.headers["x-service-delivery-id"]);
    if (!deliveries.has(deliveryId)) deliveries.set(deliveryId, { documentId: body.document_id, status: String(body.status) });
  }
  const deliveredCounts = new Map<string, number>();
  for (const { documentId, status } of deliveries.values()) {
    const key = `${documentId}: ${status}`;
    deliveredCounts.set(key, (deliveredCounts.get(key) ?? 0) + 1);
  }
  const expectedCounts = new Map<string, number>();
  let expected = 0;
  for (const [documentId, statuses] of changes) {
    for (const status of statuses) {
      const key = `${documentId}: ${status}`;
      expectedCounts.set(key, (expectedCounts.get(key) ?? 0) + 1);
      expected++;
    }
  }
  let missing = 0;
  let extra = 0;
  const missingExamples: string[] = [];
  for (const key of new Set([...expectedCounts.keys(), ...deliveredCounts.keys()])) {
    const difference = (expectedCounts.get(key) ?? 0) - (deliveredCounts.get(key) ?? 0);
    if (difference > 0) {
      missing += difference;
      if (missingExamples.length < 5) missingExamples.push(`${key} ×${difference}`);
    } else extra -= difference;
  }
  return {
    expected,
    delivered: deliveries.size,
    receipts,
    duplicates: receipts - deliveries.size,
    missing,
    extra,
    badSignatures,
    missingExamples,
  };
}

/** The spec's signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the signing key's text. */
function signedWith(key: string, request: RecordedRequest): boolean {
  const header = request.headers["x-service-signature"];
  if (typeof header !== "string") return false;
  const expected = createHmac("sha256", Buffer.from(key, "utf8")).update(request.rawBody, "utf8").digest("hex");
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}
