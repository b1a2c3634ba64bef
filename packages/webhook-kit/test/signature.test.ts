import { createHmac, timingSafeEqual } from "node:crypto";
import { expect } from "chai";
import { sign, signResponse, verifySignature } from "../src/index.js";

// A key as docex returns it (64 hex characters) and a body as docex sends it. The expected signatures were
// computed with `openssl dgst -sha256 -hmac <key>`, independently of this code.
const key = "3f6c1a0e9b2d47c8a5e1f0b3d6c9a2e5f8b1c4d7e0a3f6b9c2d5e8f1a4b7c0d3";
const body =
  '{"document_id":"5b0f3c1e-7a2d-4e8b-9c6f-1d2e3f4a5b6c","queue_id":"0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b","status":"to_validate","webhook_event":"document_status_changed"}';
const signature = "f7bfb0cf36fd3705baf33eb2fac5043fec092c0a112e959619750da674a930de";
const utf8Body = '{"results":[{"key":"supplier_name","value":"Žluťoučký kůň s.r.o."}]}';
const utf8Signature = "6a2edb18bb6e766e2b402f466687792be95c2408b70941760fe751217109a3e0";

describe("sign", () => {
  it("is the lowercase hex HMAC-SHA256 of the body keyed with the key's text (known vectors)", () => {
    expect(sign(body, key)).to.equal(signature);
    expect(sign(utf8Body, key)).to.equal(utf8Signature);
    // RFC 4231, test case 2.
    expect(sign("what do ya want for nothing?", "Jefe")).to.equal("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  it("hashes a string body as UTF-8, the same bytes as a Buffer of it", () => {
    expect(sign(Buffer.from(utf8Body, "utf8"), key)).to.equal(utf8Signature);
  });

  it("refuses an empty key and a body that is not raw, rather than sign something nobody can check", () => {
    expect(() => sign(body, "")).to.throw(TypeError, /signing key/);
    expect(() => sign(JSON.parse(body), key)).to.throw(TypeError, /raw request body/);
  });
});

describe("verifySignature", () => {
  it("accepts the signature of the body with the key, for a string and a Buffer body", () => {
    expect(verifySignature(body, signature, key)).to.equal(true);
    expect(verifySignature(Buffer.from(body), signature, key)).to.equal(true);
    expect(verifySignature(utf8Body, utf8Signature, key)).to.equal(true);
  });

  it("rejects a tampered body: one character changed, whitespace added, keys reordered", () => {
    expect(verifySignature(body.replace("to_validate", "to_validatf"), signature, key)).to.equal(false);
    expect(verifySignature(`${body}\n`, signature, key)).to.equal(false);
    expect(verifySignature(JSON.stringify(JSON.parse(body), null, 1), signature, key)).to.equal(false);
    const { status, ...rest } = JSON.parse(body);
    expect(verifySignature(JSON.stringify({ status, ...rest }), signature, key)).to.equal(false);
  });

  it("rejects a wrong key, including the right key decoded from hex instead of taken as text", () => {
    expect(verifySignature(body, signature, key.replace(/^3/, "4"))).to.equal(false);
    expect(verifySignature(body, signature, key.toUpperCase())).to.equal(false);
    const decodedKeySignature = createHmac("sha256", Buffer.from(key, "hex")).update(body).digest("hex");
    expect(verifySignature(body, decodedKeySignature, key)).to.equal(false);
  });

  it("rejects a missing or empty header", () => {
    expect(verifySignature(body, undefined, key)).to.equal(false);
    expect(verifySignature(body, "", key)).to.equal(false);
  });

  it("accepts the signature in uppercase or mixed-case hex: the same 32 bytes (docex sends lowercase)", () => {
    expect(verifySignature(body, signature.toUpperCase(), key)).to.equal(true);
    const mixed = [...signature].map((char, index) => (index % 2 ? char.toUpperCase() : char)).join("");
    expect(verifySignature(body, mixed, key)).to.equal(true);
  });

  it("answers false, without throwing, for headers of another length, where timingSafeEqual itself would throw", () => {
    const expected = Buffer.from(signature, "hex");
    expect(() => timingSafeEqual(expected, Buffer.from(signature.slice(0, 62), "hex"))).to.throw(RangeError);
    for (const header of [
      signature.slice(0, 63),
      signature.slice(0, 62),
      `${signature}0`,
      `${signature}00`,
      signature + signature,
      `sha256=${signature}`,
      ` ${signature}`,
      "0",
    ]) {
      expect(verifySignature(body, header, key), JSON.stringify(header)).to.equal(false);
    }
  });

  it("answers false for 64 characters that are not all hex (Buffer.from would silently drop the rest)", () => {
    expect(verifySignature(body, `${signature.slice(0, 62)}zz`, key)).to.equal(false);
    expect(verifySignature(body, `${signature.slice(0, 32)}${"g".repeat(32)}`, key)).to.equal(false);
  });

  it("throws for an empty key: a configuration mistake, not a bad request", () => {
    expect(() => verifySignature(body, signature, "")).to.throw(TypeError);
  });
});

describe("signResponse", () => {
  it("serializes an answer with JSON.stringify and signs exactly the text it returns", () => {
    const answer = { results: [{ key: "supplier_name", value: "Žluťoučký kůň s.r.o." }] };
    const signed = signResponse(answer, key);
    expect(signed.body).to.equal(utf8Body);
    expect(signed.headers).to.deep.equal({ "content-type": "application/json", "x-service-signature": utf8Signature });
    expect(verifySignature(signed.body, signed.headers["x-service-signature"], key)).to.equal(true);
  });

  it("sends a string as it is, already serialized", () => {
    const text = '[ {"key": "iban", "value": "CZ6508000000192000145399"} ]';
    const signed = signResponse(text, key);
    expect(signed.body).to.equal(text);
    expect(signed.headers["x-service-signature"]).to.equal(sign(text, key));
  });

  it("refuses bytes and values that JSON cannot carry", () => {
    expect(() => signResponse(Buffer.from("{}"), key)).to.throw(TypeError, /bytes/);
    expect(() => signResponse(undefined, key)).to.throw(TypeError, /JSON/);
    expect(() => signResponse(() => 1, key)).to.throw(TypeError, /JSON/);
  });
});
