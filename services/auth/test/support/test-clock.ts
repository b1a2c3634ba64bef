import type { Clock } from "../../src/domain/clock.js";

/** The real time plus an offset that tests move forward. */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  nowSeconds(): number {
    return Math.floor(this.now().getTime() / 1000);
  }
}
