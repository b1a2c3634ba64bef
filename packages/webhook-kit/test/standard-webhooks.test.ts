import { createHmac } from "node:crypto";
import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { parseDelivery, sign, signStandardWebhook, standardWebhooksSecret, verifySignature, verifyStandardWebhook } from "../src/index.js";
import { signatureProblem } from "./signature-problem.js";

// A key as docex returns it, a body as docex sends it, and a moment to sign at.
const key = "3f6c1a0e9b2d47c8a5e1f0b3d6c9a2e5f8b1c4d7e0a3f6b9c2d5e8f1a4b7c0d3";
const previousKey = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const body =
  '{"document_id":"5b0f3c1e-7a2d-4e8b-9c6f-1d2e3f4a5b6c","queue_id":"0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b","status":"to_validate","webhook_event":"document_status_changed"}';
const id = "7d1c0f7e-2f0a-4b8e-9a51-3c4d5e6f7a8b";
const timestamp = 1_795_312_800;
const now = timestamp * 1000;

const headers = (signature: string, at = timestamp) => ({
  "webhook-id": id,
  "webhook-timestamp": String(at),
  "webhook-signature": signature,
});

describe("Standard Webhooks signatures", () => {
  it("signs v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed with the key's text as bytes (computed independently)", () => {
    const expected = createHmac("sha256", Buffer.from(key, "utf8")).update(`${id}.${timestamp}.${body}`).digest("base64");
    expect(signStandardWebhook(id, timestamp, body, key)).to.equal(`v1,${expected}`);
    expect(signStandardWebhook(id, timestamp, Buffer.from(body), key)).to.equal(`v1,${expected}`);
  });

  it("the whsec_ secret is the base64 of the key's text, and stands for the same key in both schemes", () => {
    const secret = standardWebhooksSecret(key);
    expect(secret).to.equal(`whsec_${Buffer.from(key, "utf8").toString("base64")}`);
    expect(signStandardWebhook(id, timestamp, body, secret)).to.equal(signStandardWebhook(id, timestamp, body, key));
    expect(verifySignature(body, sign(body, key), secret)).to.equal(true);
    expect(() => signStandardWebhook(id, timestamp, body, "whsec_%%%")).to.throw(TypeError, /whsec_/);
  });

  it("interoperates with the official standardwebhooks library: it verifies ours, we verify its", () => {
    const official = new Webhook(standardWebhooksSecret(key));
    const at = Math.floor(Date.now() / 1000);
    const ours = signStandardWebhook(id, at, body, key);
    expect(official.verify(body, headers(ours, at))).to.deep.equal(JSON.parse(body));

    const theirs = official.sign(id, new Date(now), body);
    expect(verifyStandardWebhook(body, headers(theirs), key, { now })).to.deep.equal({ id, timestamp });
    expect(verifyStandardWebhook(body, headers(theirs), standardWebhooksSecret(key), { now })).to.deep.equal({ id, timestamp });
    // And the official library refuses what another key signed.
    const other = signStandardWebhook(id, at, body, previousKey);
    expect(() => official.verify(body, headers(other, at))).to.throw(/No matching signature/);
  });

  it("accepts any of several space-separated signatures (a rotation signs with the new and the previous key)", () => {
    const both = `${signStandardWebhook(id, timestamp, body, key)} ${signStandardWebhook(id, timestamp, body, previousKey)}`;
    expect(verifyStandardWebhook(body, headers(both), key, { now }).id).to.equal(id);
    expect(verifyStandardWebhook(body, headers(both), previousKey, { now }).id).to.equal(id);
    // Unknown versions and junk beside a good entry are skipped, not fatal.
    const mixed = `v1a,abc v2,${"A".repeat(43)}= ${signStandardWebhook(id, timestamp, body, previousKey)}`;
    expect(verifyStandardWebhook(body, headers(mixed), previousKey, { now }).id).to.equal(id);
    // A receiver holding both keys accepts a message signed by either.
    expect(verifyStandardWebhook(body, headers(signStandardWebhook(id, timestamp, body, key)), [previousKey, key], { now }).id).to.equal(
      id,
    );
  });

  it("rejects a changed body, id or timestamp, and a wrong key (mismatch)", () => {
    const signature = signStandardWebhook(id, timestamp, body, key);
    expect(signatureProblem(() => verifyStandardWebhook(`${body} `, headers(signature), key, { now }))).to.equal("mismatch");
    expect(signatureProblem(() => verifyStandardWebhook(body, { ...headers(signature), "webhook-id": `${id}x` }, key, { now }))).to.equal(
      "mismatch",
    );
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(signature, timestamp + 1), key, { now }))).to.equal("mismatch");
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(signature), previousKey, { now }))).to.equal("mismatch");
    // The hex signature of x-service-signature is no v1 signature.
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(`v1,${sign(body, key)}`), key, { now }))).to.equal("malformed");
  });

  it("rejects a replay: a correctly signed message older (or newer) than the tolerance, 5 minutes by default", () => {
    const signature = signStandardWebhook(id, timestamp, body, key);
    expect(verifyStandardWebhook(body, headers(signature), key, { now: now + 300_000 }).timestamp).to.equal(timestamp);
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(signature), key, { now: now + 301_000 }))).to.equal("expired");
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(signature), key, { now: now - 301_000 }))).to.equal("expired");
    expect(
      signatureProblem(() => verifyStandardWebhook(body, headers(signature), key, { now: now + 60_000, toleranceSeconds: 30 })),
    ).to.equal("expired");
    // With the real clock, a message signed a day ago is refused.
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(signature), key))).to.equal("expired");
  });

  it("names missing headers and malformed ones", () => {
    const signature = signStandardWebhook(id, timestamp, body, key);
    const { "webhook-id": _id, ...withoutId } = headers(signature);
    expect(signatureProblem(() => verifyStandardWebhook(body, withoutId, key, { now }))).to.equal("missing");
    expect(() => verifyStandardWebhook(body, withoutId, key, { now })).to.throw(/webhook-id/);
    expect(signatureProblem(() => verifyStandardWebhook(body, headers(signature, Number.NaN), key, { now }))).to.equal("malformed");
    expect(
      signatureProblem(() => verifyStandardWebhook(body, { ...headers(signature), "webhook-timestamp": "1e9" }, key, { now })),
    ).to.equal("malformed");
    expect(signatureProblem(() => verifyStandardWebhook(body, headers("v1,short"), key, { now }))).to.equal("malformed");
  });

  it("reads Fetch Headers as well as Node's header object", () => {
    const signature = signStandardWebhook(id, timestamp, body, key);
    expect(verifyStandardWebhook(body, new Headers(headers(signature)), key, { now }).id).to.equal(id);
  });

  it("parseDelivery with scheme standard-webhooks verifies those headers and returns the signed id and timestamp", () => {
    const signature = signStandardWebhook(id, timestamp, body, key);
    const parsed = parseDelivery(body, headers(signature), key, { scheme: "standard-webhooks", now });
    expect(parsed).to.deep.equal({ payload: JSON.parse(body), deliveryId: id, timestamp });
    expect(signatureProblem(() => parseDelivery(body, headers(signature), key, { scheme: "standard-webhooks" }))).to.equal("expired");
    // The default scheme still wants x-service-signature.
    expect(signatureProblem(() => parseDelivery(body, headers(signature), key))).to.equal("missing");
  });
});
