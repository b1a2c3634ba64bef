import { expect } from "chai";
import { Readiness } from "../src/http/readiness.js";
import { Metrics } from "../src/metrics.js";

describe("Readiness: can this process take traffic (issue 20, item 2)", () => {
  it("a watched dependency that does not answer is reported and measured, and the process stays ready", async () => {
    const metrics = new Metrics("readiness-test", { defaultMetrics: false });
    const readiness = new Readiness(metrics);
    readiness.add("postgres", async () => undefined);
    readiness.watch("nats", async () => {
      throw new Error("connection refused");
    });
    const report = await readiness.report();
    expect(report).to.deep.equal({ ready: true, checks: { postgres: "ok" }, dependencies: { nats: "connection refused" } });
    expect(await metrics.registry.getSingleMetricAsString("dependency_up")).to.include(
      'dependency_up{dependency="nats",service="readiness-test"} 0',
    );
  });

  it("a failing check makes it unready, and so does shutting down, whatever the dependencies say", async () => {
    const readiness = new Readiness();
    let databaseUp = false;
    readiness.add("postgres", async () => {
      if (!databaseUp) throw new Error("database down");
    });
    readiness.watch("nats", async () => undefined);
    expect((await readiness.report()).ready).to.equal(false);
    databaseUp = true;
    expect((await readiness.report()).ready).to.equal(true);
    readiness.drain();
    expect(await readiness.report()).to.deep.include({ ready: false, checks: { process: "shutting down" } });
  });
});
