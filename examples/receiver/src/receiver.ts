import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type DocumentStatusChangedPayload,
  type ParsedDelivery,
  parseDelivery,
  type QueueCreatedPayload,
  signResponse,
  type ValidationAnswer,
  type ValidationRequestPayload,
  WebhookPayloadError,
  WebhookSignatureError,
} from "@docex/webhook-kit";
import { checkInvoice } from "./invoice-checks.js";

export interface ReceivedEvent {
  payload: DocumentStatusChangedPayload | QueueCreatedPayload;
  deliveryId: string | undefined;
  timestamp: number | undefined;
}

export interface ReceiverOptions {
  /** The organization's webhook signing key, exactly as docex returned it (`key`, or its `standard_webhooks_secret`). */
  signingKey: string;
  /**
   * Which signature to verify: `x-service-signature` (the default: the body alone) or `standard-webhooks`
   * (`webhook-signature` over id, timestamp and body; requests older than 5 minutes are refused as replays).
   */
  scheme?: "x-service-signature" | "standard-webhooks";
  /**
   * Handles a verified event, once per delivery id. Resolve when the event is safely stored: docex
   * retries until it gets a 2xx within 10 s, so slow work belongs after the answer.
   */
  onEvent?: (event: ReceivedEvent) => void | Promise<void>;
  /** Answers a verified validation call; the answer is signed. document_validation waits ~200 ms at most. */
  validate?: (request: ValidationRequestPayload) => ValidationAnswer | Promise<ValidationAnswer>;
  log?: (entry: Record<string, unknown>) => void;
  maxBodyBytes?: number;
}

class BodyTooLarge extends Error {}

/** How many delivery ids are remembered to drop repeats. A real receiver keeps them with the events it stores. */
const REMEMBERED_DELIVERIES = 10_000;

/**
 * An HTTP server (not yet listening) that takes docex's requests on any path: events are verified and
 * handed to `onEvent`, validation calls are verified and answered with a signed answer from `validate`.
 */
export function createReceiver(options: ReceiverOptions): Server {
  const log = options.log ?? ((entry) => console.log(JSON.stringify(entry)));
  const onEvent = options.onEvent ?? ((event) => log({ msg: "event", delivery_id: event.deliveryId, ...event.payload }));
  const validate = options.validate ?? checkInvoice;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const handled = new Set<string>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== "POST") return reply(response, 405, { error: "method_not_allowed" }, { allow: "POST" });
    let delivery: ParsedDelivery;
    try {
      delivery = parseDelivery(await readBody(request, maxBodyBytes), request.headers, options.signingKey, {
        scheme: options.scheme ?? "x-service-signature",
      });
    } catch (error) {
      if (error instanceof BodyTooLarge) return reply(response, 413, { error: "body_too_large" }, { connection: "close" });
      if (error instanceof WebhookSignatureError) {
        log({ msg: "rejected a request with a bad signature", reason: error.reason });
        return reply(response, 401, { error: "invalid_signature" });
      }
      if (error instanceof WebhookPayloadError) {
        log({ msg: "rejected a signed request that is no payload", detail: error.message });
        return reply(response, 400, { error: "invalid_payload" });
      }
      throw error;
    }

    const { payload, deliveryId, timestamp } = delivery;
    switch (payload.webhook_event) {
      case "document_validation":
      case "initial_document_validation": {
        const signed = signResponse(await validate(payload), options.signingKey);
        response.writeHead(200, signed.headers).end(signed.body);
        return;
      }
      default: {
        // At least once: a retry of a delivery already handled is acknowledged and not handled again.
        if (deliveryId !== undefined && handled.has(deliveryId)) return reply(response, 204);
        await onEvent({ payload, deliveryId, timestamp });
        if (deliveryId !== undefined) remember(deliveryId);
        reply(response, 204);
      }
    }
  }

  function remember(deliveryId: string): void {
    handled.add(deliveryId);
    if (handled.size > REMEMBERED_DELIVERIES) handled.delete(handled.values().next().value!);
  }

  return createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log({ msg: "failed to handle a request", error: String(error) });
      // Anything but a 2xx makes docex retry the delivery later.
      if (!response.headersSent) reply(response, 500, { error: "internal" });
      else response.destroy();
    });
  });
}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(request.headers["content-length"]) > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function reply(response: ServerResponse, status: number, body?: object, headers: Record<string, string> = {}): void {
  response.writeHead(status, body === undefined ? headers : { "content-type": "application/json", ...headers });
  response.end(body === undefined ? undefined : JSON.stringify(body));
}
