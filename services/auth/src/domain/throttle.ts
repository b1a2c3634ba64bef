import { RateLimitedError } from "@docex/kit";
import type { ThrottleStore } from "../store/throttle-store.js";
import { addSeconds, type Clock } from "./clock.js";
import { tokenDigest } from "./secrets.js";

export interface ThrottleRule {
  limit: number;
  windowSeconds: number;
}

export interface ThrottleState {
  failures: number;
  windowStartedAt: Date;
  blockedUntil: Date | null;
  /** Lockouts in a row; each one lasts twice as long as the one before. */
  lockouts: number;
  updatedAt: Date;
}

export type ThrottleScope = "account" | "address" | "mail_recipient" | "mail_address";

export interface ThrottleKey {
  scope: ThrottleScope;
  /** A digest of the account's email or the client's address; neither is stored as such. */
  subject: Buffer;
}

const MAX_LOCKOUT_SECONDS = 24 * 3600;
/** A day without failures forgets earlier lockouts. */
const LOCKOUT_MEMORY_SECONDS = 24 * 3600;

/** The state after one more failure: `limit` failures within the window lock for the window, doubling on repeat. */
export function afterFailure(state: ThrottleState | undefined, rule: ThrottleRule, now: Date): ThrottleState {
  const quietFor = state ? (now.getTime() - state.updatedAt.getTime()) / 1000 : Number.POSITIVE_INFINITY;
  let lockouts = state && quietFor < LOCKOUT_MEMORY_SECONDS ? state.lockouts : 0;
  const windowOpen = state && addSeconds(state.windowStartedAt, rule.windowSeconds) > now;
  let failures = (windowOpen ? state.failures : 0) + 1;
  let windowStartedAt = windowOpen ? state.windowStartedAt : now;
  let blockedUntil = state?.blockedUntil && state.blockedUntil > now ? state.blockedUntil : null;
  if (failures >= rule.limit) {
    lockouts += 1;
    blockedUntil = addSeconds(now, Math.min(rule.windowSeconds * 2 ** (lockouts - 1), MAX_LOCKOUT_SECONDS));
    failures = 0;
    windowStartedAt = now;
  }
  return { failures, windowStartedAt, blockedUntil, lockouts, updatedAt: now };
}

/** Seconds until the subject may try again; 0 when it may now. */
export function blockedForSeconds(state: ThrottleState | undefined, now: Date): number {
  if (!state?.blockedUntil || state.blockedUntil <= now) return 0;
  return Math.ceil((state.blockedUntil.getTime() - now.getTime()) / 1000);
}

/**
 * Counts failures (logins, PINs, TOTP codes, one-time tokens) per account and per client address,
 * and mail requests per recipient and address, in Postgres so that every replica sees the same
 * counts. A blocked subject gets 429 with Retry-After before any password is checked.
 */
export class Throttle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly clock: Clock,
    private readonly rules: Record<ThrottleScope, ThrottleRule>,
  ) {}

  static key(scope: ThrottleScope, value: string): ThrottleKey {
    return { scope, subject: tokenDigest(`${scope}:${value}`) };
  }

  /** 429 when any of the keys is blocked, with the longest wait. */
  async assertAllowed(keys: ThrottleKey[]): Promise<void> {
    const wait = await this.blockedFor(keys);
    if (wait > 0) throw new RateLimitedError(wait, "Too many attempts; try again later.");
  }

  async blockedFor(keys: ThrottleKey[]): Promise<number> {
    const now = this.clock.now();
    const states = await this.store.read(keys);
    return Math.max(0, ...states.map((state) => blockedForSeconds(state, now)));
  }

  async recordFailure(keys: ThrottleKey[]): Promise<void> {
    const now = this.clock.now();
    for (const key of keys) {
      await this.store.update(key, (state) => afterFailure(state, this.rules[key.scope], now));
    }
  }

  /** Counts a request that may send mail; 429 once the client address has asked for too many. */
  async admitMailRequest(clientAddress: string): Promise<void> {
    const key = Throttle.key("mail_address", clientAddress);
    await this.assertAllowed([key]);
    await this.recordFailure([key]);
  }

  /** Whether one more mail of this kind may go to this recipient; past the quota it is dropped without a word. */
  async admitMailTo(kind: string, recipient: string): Promise<boolean> {
    const key = Throttle.key("mail_recipient", `${kind}:${recipient}`);
    const now = this.clock.now();
    let admitted = false;
    // Decided under the row lock, so concurrent requests cannot all slip through below the quota.
    await this.store.update(key, (state) => {
      admitted = blockedForSeconds(state, now) === 0;
      return admitted || !state ? afterFailure(state, this.rules.mail_recipient, now) : state;
    });
    return admitted;
  }

  /** A success clears the account's failures (never an address's: an attacker would log into their own account to reset it). */
  async recordSuccess(key: ThrottleKey): Promise<void> {
    await this.store.clear(key);
  }
}
