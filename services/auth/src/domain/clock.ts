/** Where the domain reads the time; tests move it forward instead of waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
