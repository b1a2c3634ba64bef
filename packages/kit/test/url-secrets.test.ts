import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { expect } from "chai";
import { RedactingSpanExporter } from "../src/tracing/redacting-exporter.js";
import { isSecretQueryParameter, redactQueryString, redactUrlSecrets } from "../src/tracing/url-secrets.js";

describe("query secrets: which parameters are secret and how they are redacted", () => {
  it("takes a parameter as secret when a word of its name says so, in any case, separator or percent-encoding", () => {
    for (const name of [
      "token",
      "code",
      "pin",
      "password",
      "id_token",
      "refresh_token",
      "access_token",
      "accessToken",
      "client_secret",
      "key",
      "api-key",
      "X-Amz-Signature",
      "X-Amz-Credential",
      "X-Amz-Security-Token",
      "otp",
      "nonce",
      "%74oken",
    ])
      expect(isSecretQueryParameter(name), name).to.equal(true);
    for (const name of ["page", "page_size", "ordering", "status", "queue", "shipping", "q", "search", "id"])
      expect(isSecretQueryParameter(name), name).to.equal(false);
  });

  it("replaces the values of secret parameters in a URL or in free text, and keeps the rest", () => {
    expect(redactUrlSecrets("/api/v2/auth/password-change-token?token=abc.def&page=2#top")).to.equal(
      "/api/v2/auth/password-change-token?token=[redacted]&page=2#top",
    );
    expect(redactUrlSecrets("https://store.example/f?X-Amz-Signature=ff00&X-Amz-Expires=60")).to.equal(
      "https://store.example/f?X-Amz-Signature=[redacted]&X-Amz-Expires=60",
    );
    expect(redactUrlSecrets('{"msg":"GET /x?code=123456 failed","url":"/x?pin=4242"}')).to.equal(
      '{"msg":"GET /x?code=[redacted] failed","url":"/x?pin=[redacted]"}',
    );
    expect(redactUrlSecrets("no query here, a=b")).to.equal("no query here, a=b");
    expect(redactQueryString("token=abc&page=1")).to.equal("token=[redacted]&page=1");
    expect(redactQueryString("?id_token=abc")).to.equal("?id_token=[redacted]");
  });
});

describe("RedactingSpanExporter: what leaves the process", () => {
  it("redacts query secrets from the name, every string attribute, events, links and the status message; numbers and ids untouched", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new RedactingSpanExporter(exporter) })] });
    const tracer = provider.getTracer("test");
    const span = tracer.startSpan("GET /x?token=t1", {
      kind: SpanKind.SERVER,
      attributes: {
        "url.query": "token=t2&page=3",
        "url.full": "http://gateway/x?refresh_token=t3",
        "http.target": "/x?password=t4",
        "http.url": "http://gateway/x?secret=t5",
        "http.response.status_code": 200,
        "list.of.urls": ["/a?key=t6", "/b"],
      },
      links: [{ context: { traceId: "1".repeat(32), spanId: "2".repeat(16), traceFlags: 1 }, attributes: { from: "/l?code=t7" } }],
    });
    span.recordException(new Error("fetch /y?pin=t8 failed"));
    span.setStatus({ code: SpanStatusCode.ERROR, message: "GET /y?id_token=t9" });
    span.end();
    const [exported] = exporter.getFinishedSpans();
    const text = JSON.stringify({ ...exported, resource: undefined });
    for (let n = 1; n <= 9; n++) expect(text, `t${n}`).to.not.match(new RegExp(`\\bt${n}\\b`));
    expect(exported!.attributes).to.deep.include({
      "url.query": "token=[redacted]&page=3",
      "http.response.status_code": 200,
      "list.of.urls": ["/a?key=[redacted]", "/b"],
    });
    expect(exported!.spanContext().spanId).to.equal(span.spanContext().spanId);
    await provider.shutdown();
  });
});
