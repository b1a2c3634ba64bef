export {
  type HeadersLike,
  type ParsedDelivery,
  type ParseOptions,
  parseDelivery,
  type SignatureProblem,
  WebhookPayloadError,
  WebhookSignatureError,
} from "./delivery.js";
export * from "./payloads.js";
export {
  DELIVERY_ID_HEADER,
  SIGNATURE_HEADER,
  type SignedResponse,
  STANDARD_SECRET_PREFIX,
  sign,
  signResponse,
  TIMESTAMP_HEADER,
  verifySignature,
} from "./signature.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  type StandardVerifyOptions,
  signStandardWebhook,
  standardWebhooksSecret,
  type VerifiedStandardWebhook,
  verifyStandardWebhook,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "./standard-webhooks.js";
