export {
  type HeadersLike,
  type ParsedDelivery,
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
  sign,
  signResponse,
  TIMESTAMP_HEADER,
  verifySignature,
} from "./signature.js";
