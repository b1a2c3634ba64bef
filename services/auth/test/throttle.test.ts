import { expect } from "chai";
import { afterFailure, blockedForSeconds, type ThrottleState } from "../src/domain/throttle.js";

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
});
