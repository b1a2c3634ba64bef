import { SIGNATURE_HEADER } from "./signature.js";

/** `expired`: a Standard Webhooks timestamp outside the tolerance (a replay, or a clock that is off). */
export type SignatureProblem = "missing" | "malformed" | "mismatch" | "expired";

const X_SERVICE_MESSAGES: Record<SignatureProblem, string> = {
  missing: `no ${SIGNATURE_HEADER} header`,
  malformed: `${SIGNATURE_HEADER} is not 64 hexadecimal characters`,
  mismatch: `${SIGNATURE_HEADER} does not match the body and the signing key`,
  expired: "the request is too old",
};

/** The request is not signed by the key (or, for Standard Webhooks, not recently): answer 401 and ignore it. */
export class WebhookSignatureError extends Error {
  override readonly name = "WebhookSignatureError";

  constructor(
    readonly reason: SignatureProblem,
    message?: string,
  ) {
    super(message ?? X_SERVICE_MESSAGES[reason]);
  }
}

/** A correctly signed body that is not a payload this version of the kit knows: answer 400. */
export class WebhookPayloadError extends Error {
  override readonly name = "WebhookPayloadError";
}
