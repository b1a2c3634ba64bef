import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { OtlpReceiver, SPAN_KIND } from "@docex/testkit";
import { expect } from "chai";

const run = promisify(execFile);
const fixture = fileURLToPath(new URL("./fixtures/traced-password-reset.ts", import.meta.url));
const serviceDir = fileURLToPath(new URL("..", import.meta.url));

interface FixtureReport {
  tracing: boolean;
  token: string;
  statuses: number[];
  logs: string[];
}

/**
 * Issue 39, item 4: a password-change link's token reached the spans as `url.query`. The service runs in a process
 * of its own as `npm start` runs it (the kit's tracing register, OTLP to a local receiver), so the spans read here
 * are the ones a collector would get.
 */
describe("a password reset traced and logged (issue 39, item 4)", function () {
  this.timeout(90_000);
  let otlp: OtlpReceiver;
  let report: FixtureReport;

  before(async () => {
    otlp = await OtlpReceiver.start();
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
    const { stdout } = await run(process.execPath, ["--import", "@docex/kit/tracing/register", "--import", "tsx", fixture], {
      cwd: serviceDir,
      env: { ...clean, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: "200" },
      timeout: 80_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    report = JSON.parse(stdout.trim().split("\n").at(-1)!) as FixtureReport;
  });

  after(async () => {
    await otlp?.stop();
  });

  it("serves the reset with tracing on: 202, 200 for the token read back, 200 for the new password", () => {
    expect(report.tracing).to.equal(true);
    expect(report.statuses).to.deep.equal([202, 200, 200]);
    expect(report.token).to.have.length.greaterThan(20);
  });

  it("exports no span that holds the token: the request's server span has its query, the token redacted", () => {
    const spans = otlp.spans;
    expect(JSON.stringify(spans), "the exported spans").to.not.include(report.token);
    const read = spans.find(
      (span) => span.kind === SPAN_KIND.server && span.attributes["url.path"] === "/api/v2/auth/password-change-token",
    );
    expect(read, "the server span of GET /auth/password-change-token").to.not.equal(undefined);
    // Other parameters kept beside a redacted token: kit test/tracing.test.ts (this operation takes no other).
    expect(read!.attributes["url.query"]).to.equal("token=[redacted]");
  });

  it("logs no line that holds the token, the request's own line included", () => {
    expect(report.logs.length).to.be.greaterThan(0);
    for (const line of report.logs) expect(line).to.not.include(report.token);
    expect(
      report.logs.some((line) => line.includes("/api/v2/auth/password-change-token")),
      "the request's log line",
    ).to.equal(true);
  });
});
