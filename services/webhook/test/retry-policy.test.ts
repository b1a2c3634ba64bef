import { expect } from "chai";
import { parseRetryAfter, RetryPolicy } from "../src/domain/retry-policy.js";

describe("retry policy (unit)", () => {
  const now = new Date("2026-01-01T00:00:00Z");

  it("waits the schedule's interval after each attempt, within ±20 %, and gives up after 1 + its length attempts", () => {
    const policy = new RetryPolicy({ scheduleSeconds: [5, 300, 1800] });
    expect(policy.maxAttempts).to.equal(4);
    for (const [attempt, seconds] of [
      [1, 5],
      [2, 300],
      [3, 1800],
    ] as const) {
      for (const random of [0, 0.5, 0.999]) {
        const next = new RetryPolicy({ scheduleSeconds: [5, 300, 1800], random: () => random }).afterFailure(attempt, 4, now);
        expect(next.kind).to.equal("retry");
        const waited = next.kind === "retry" ? (next.at.getTime() - now.getTime()) / 1000 : 0;
        expect(waited).to.be.within(seconds * 0.8, seconds * 1.2);
      }
    }
    expect(policy.afterFailure(4, 4, now)).to.deep.equal({ kind: "give_up" });
  });

  it("honours Retry-After when it asks for longer than the schedule, never shorter", () => {
    const policy = new RetryPolicy({ scheduleSeconds: [5, 300], random: () => 0.5 });
    const longer = policy.afterFailure(1, 3, now, 60);
    expect(longer.kind === "retry" && longer.at.getTime() - now.getTime()).to.equal(60_000);
    const shorter = policy.afterFailure(2, 3, now, 1);
    expect(shorter.kind === "retry" && shorter.at.getTime() - now.getTime()).to.equal(300_000);
  });

  it("a manual retry of a finished delivery gets one attempt, which waits the last interval if it fails and there is more budget", () => {
    const policy = new RetryPolicy({ scheduleSeconds: [5], random: () => 0.5 });
    expect(policy.afterFailure(3, 3, now)).to.deep.equal({ kind: "give_up" });
    const more = policy.afterFailure(3, 4, now);
    expect(more.kind === "retry" && more.at.getTime() - now.getTime()).to.equal(5_000);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("120", now)).to.equal(120);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).to.equal(30);
    expect(parseRetryAfter("soon", now)).to.equal(undefined);
    expect(parseRetryAfter(undefined, now)).to.equal(undefined);
  });
});
