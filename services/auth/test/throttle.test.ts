import { expect } from "chai";
import { clientNetwork } from "../src/domain/client-network.js";
import { afterFailure, blockedForSeconds, type ThrottleState, withoutReservation } from "../src/domain/throttle.js";

const rule = { limit: 3, windowSeconds: 60 };
const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1) + seconds * 1000);

function failures(times: number[], start?: ThrottleState): ThrottleState | undefined {
  let state = start;
  for (const time of times) state = afterFailure(state, rule, at(time));
  return state;
}

describe("throttle rules", () => {
  it("blocks for the window once the limit of failures falls within it", () => {
    expect(blockedForSeconds(failures([0, 10]), at(11))).to.equal(0);
    const blocked = failures([0, 10, 20]);
    expect(blockedForSeconds(blocked, at(20))).to.equal(60);
    expect(blockedForSeconds(blocked, at(80))).to.equal(0);
  });

  it("starts counting afresh when the window passes without reaching the limit", () => {
    expect(blockedForSeconds(failures([0, 10, 61]), at(61))).to.equal(0);
  });

  it("doubles each lockout that follows another, up to a day", () => {
    const first = failures([0, 1, 2])!;
    const second = failures([70, 71, 72], first)!;
    expect(blockedForSeconds(second, at(72))).to.equal(120);
    const third = failures([200, 201, 202], second)!;
    expect(blockedForSeconds(third, at(202))).to.equal(240);
    let state: ThrottleState | undefined = third;
    for (let round = 0; round < 20; round += 1) state = failures([1_000 + round * 3, 1_001 + round * 3, 1_002 + round * 3], state);
    expect(blockedForSeconds(state, at(1_062))).to.be.at.most(24 * 3600);
  });

  it("forgets earlier lockouts after a quiet day", () => {
    const first = failures([0, 1, 2])!;
    const later = failures([90_000, 90_001, 90_002], first)!;
    expect(blockedForSeconds(later, at(90_002))).to.equal(60);
  });

  it("caps a lockout at the rule's maximum however often it repeats", () => {
    const capped = { ...rule, maxLockoutSeconds: 100 };
    let state: ThrottleState | undefined;
    const waits: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const start = round * 1_000;
      for (const time of [start, start + 1, start + 2]) state = afterFailure(state, capped, at(time));
      waits.push(blockedForSeconds(state, at(start + 2)));
    }
    expect(waits).to.deep.equal([60, 100, 100, 100]);
  });

  it("gives a reserved attempt back: one failure less in its window, or the state before the lockout it started", () => {
    const two = failures([0, 1])!;
    const three = afterFailure(two, rule, at(2));
    expect(blockedForSeconds(three, at(2))).to.equal(60);
    const restored = withoutReservation(three, { key: { scope: "address", subject: Buffer.alloc(0) }, before: two, after: three }, at(3));
    expect(restored).to.deep.equal(two);
    expect(blockedForSeconds(restored, at(3))).to.equal(0);

    const one = failures([0])!;
    const back = withoutReservation(two, { key: { scope: "address", subject: Buffer.alloc(0) }, before: one, after: two }, at(3));
    expect(back?.failures).to.equal(1);
    // A window that has moved on since is left alone.
    const later = failures([100], two)!;
    expect(withoutReservation(later, { key: { scope: "address", subject: Buffer.alloc(0) }, before: one, after: two }, at(101))).to.equal(
      undefined,
    );
  });

  it("keys client addresses by network: IPv6 by /64, IPv4-mapped as IPv4", () => {
    expect(clientNetwork("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).to.equal("2001:db8:1:2::/64");
    expect(clientNetwork("2001:db8:1:2::1")).to.equal(clientNetwork("2001:db8:1:2:ffff::9"));
    expect(clientNetwork("2001:db8:1:3::1")).to.not.equal(clientNetwork("2001:db8:1:2::1"));
    expect(clientNetwork("::ffff:198.51.100.7")).to.equal("198.51.100.7");
    expect(clientNetwork("198.51.100.7")).to.equal("198.51.100.7");
    expect(clientNetwork("not an address")).to.equal("not an address");
  });
});
