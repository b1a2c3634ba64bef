import { expect } from "chai";
import {
  type DocumentStatusChangedPayload,
  parseDelivery,
  sign,
  type ValidationRequestPayload,
  WebhookPayloadError,
} from "../src/index.js";
import { signatureProblem } from "./signature-problem.js";

const key = "3f6c1a0e9b2d47c8a5e1f0b3d6c9a2e5f8b1c4d7e0a3f6b9c2d5e8f1a4b7c0d3";
const statusChanged: DocumentStatusChangedPayload = {
  document_id: "5b0f3c1e-7a2d-4e8b-9c6f-1d2e3f4a5b6c",
  queue_id: "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b",
  status: "to_validate",
  webhook_event: "document_status_changed",
};
const validation: ValidationRequestPayload = {
  document_id: statusChanged.document_id,
  queue_id: statusChanged.queue_id,
  user_id: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
  previous_annotations: [{ key: "iban", value: "" }],
  annotations: [{ key: "iban", value: "cz65 0800 0000 1920 0014 5399", source: "user" }],
  webhook_event: "document_validation",
};

function signedHeaders(body: string): Record<string, string> {
  return {
    "x-service-signature": sign(body, key),
    "x-service-delivery-id": "7d1c0f7e-2f0a-4b8e-9a51-3c4d5e6f7a8b",
    "x-service-timestamp": "1795312800",
  };
}

describe("parseDelivery", () => {
  it("verifies and parses a delivery with Node's request headers, with its delivery id and timestamp", () => {
    const body = JSON.stringify(statusChanged);
    const delivery = parseDelivery(Buffer.from(body), signedHeaders(body), key);
    expect(delivery).to.deep.equal({ payload: statusChanged, deliveryId: "7d1c0f7e-2f0a-4b8e-9a51-3c4d5e6f7a8b", timestamp: 1795312800 });
  });

  it("reads a Fetch Headers object and header names in any case", () => {
    const body = JSON.stringify(validation);
    expect(parseDelivery(body, new Headers(signedHeaders(body)), key).payload).to.deep.equal(validation);
    const shouting = { "X-Service-Signature": sign(body, key) };
    const delivery = parseDelivery(body, shouting, key);
    expect(delivery.payload).to.deep.equal(validation);
    expect(delivery.deliveryId).to.equal(undefined);
    expect(delivery.timestamp).to.equal(undefined);
  });

  it("gives a payload that narrows on webhook_event", () => {
    const body = JSON.stringify(validation);
    const { payload } = parseDelivery(body, signedHeaders(body), key);
    if (payload.webhook_event !== "document_validation") throw new Error("expected document_validation");
    expect(payload.annotations[0]?.value).to.equal("cz65 0800 0000 1920 0014 5399");
  });

  it("throws WebhookSignatureError saying whether the signature is missing, malformed or wrong", () => {
    const body = JSON.stringify(statusChanged);
    expect(signatureProblem(() => parseDelivery(body, {}, key))).to.equal("missing");
    expect(signatureProblem(() => parseDelivery(body, { "x-service-signature": "abc" }, key))).to.equal("malformed");
    expect(signatureProblem(() => parseDelivery(body, { "x-service-signature": [sign(body, key), sign(body, key)] }, key))).to.equal(
      "malformed",
    );
    expect(signatureProblem(() => parseDelivery(body.replace("to_validate", "exported"), signedHeaders(body), key))).to.equal("mismatch");
    expect(signatureProblem(() => parseDelivery(body, signedHeaders(body), key.replace(/^3/, "4")))).to.equal("mismatch");
  });

  it("checks the signature before it reads the body: an unsigned non-JSON body is a signature error", () => {
    expect(signatureProblem(() => parseDelivery("not json", { "x-service-signature": "0".repeat(64) }, key))).to.equal("mismatch");
  });

  it("throws WebhookPayloadError for a signed body that is not a known payload", () => {
    const cases: Array<[string, RegExp]> = [
      ["not json", /not JSON/],
      ["[]", /not a JSON object/],
      ["null", /not a JSON object/],
      ['{"webhook_event":"document_deleted"}', /unknown webhook_event "document_deleted"/],
      ['{"document_id":"x","queue_id":"y"}', /unknown webhook_event undefined/],
      ['{"document_id":"x","queue_id":"y","webhook_event":"document_status_changed"}', /missing or mistyped status/],
      [JSON.stringify({ ...validation, user_id: 7, annotations: {} }), /user_id, annotations/],
    ];
    for (const [body, message] of cases) {
      expect(() => parseDelivery(body, signedHeaders(body), key), body).to.throw(WebhookPayloadError, message);
    }
  });

  it("leaves the timestamp out when the header is not a positive number", () => {
    const body = JSON.stringify(statusChanged);
    expect(parseDelivery(body, { ...signedHeaders(body), "x-service-timestamp": "soon" }, key).timestamp).to.equal(undefined);
  });
});
