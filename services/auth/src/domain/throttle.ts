import { RateLimitedError } from "@docex/kit/errors";
import type { ThrottleStore } from "../store/throttle-store.js";
import { clientNetwork } from "./client-network.js";
import { addSeconds, type Clock } from "./clock.js";
import { tokenDigest } from "./secrets.js";

export interface ThrottleRule {
  limit: number;
  windowSeconds: number;
  /** The longest a lockout may last, however often it repeats; a day when not given. */
  maxLockoutSeconds?: number;
}

export interface ThrottleState {
  failures: number;
  windowStartedAt: Date;
  blockedUntil: Date | null;
  /** Lockouts in a row; each one lasts twice as long as the one before, up to the rule's cap. */
  lockouts: number;
  updatedAt: Date;
}

/**
 * - `account_address`: login, PIN and TOTP failures of one account from one client network (the limit an
 *   attacker meets, without locking the owner out from elsewhere);
 * - `account`: the same from anywhere, a much higher total against guesses spread over many networks;
 * - `address`: failures of one client network, whatever the account;
 * - `recovery_account`, `recovery_address`: the recovery paths (magic login, password change with a mailed
 *   token), counted on their own so that a locked login leaves them open;
 * - `mail_recipient`, `mail_address`: mail quotas.
 */
export type ThrottleScope =
  | "account_address"
  | "account"
  | "address"
  | "recovery_account"
  | "recovery_address"
  | "mail_recipient"
  | "mail_address";

export interface ThrottleKey {
  scope: ThrottleScope;
  /** A digest of the account's email and/or the client's network; neither is stored as such. */
  subject: Buffer;
}

const DEFAULT_MAX_LOCKOUT_SECONDS = 24 * 3600;
/** A day without failures forgets earlier lockouts. */
const LOCKOUT_MEMORY_SECONDS = 24 * 3600;
/** Scopes whose value is a client address: keyed by its network (IPv6 by /64). */
const ADDRESS_SCOPES: ReadonlySet<ThrottleScope> = new Set(["address", "recovery_address", "mail_address"]);
/** Scopes a success clears (the client proved to be the owner); the others only get their attempt back. */
const CLEARED_ON_SUCCESS: ReadonlySet<ThrottleScope> = new Set(["account_address", "recovery_account"]);

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
    const cap = rule.maxLockoutSeconds ?? DEFAULT_MAX_LOCKOUT_SECONDS;
    blockedUntil = addSeconds(now, Math.min(rule.windowSeconds * 2 ** Math.min(lockouts - 1, 30), cap));
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

/** What one reservation did to one key: the state before and after it counted. */
export interface ReservedKey {
  key: ThrottleKey;
  before: ThrottleState | undefined;
  after: ThrottleState;
}

/**
 * The state once a reserved attempt is given back (it turned out right, or was no guess), or undefined to
 * leave it as it is. When the reservation started a lockout that still stands untouched, the state from
 * before it comes back; otherwise, in the same window, one failure less.
 */
export function withoutReservation(current: ThrottleState | undefined, reserved: ReservedKey, now: Date): ThrottleState | undefined {
  if (!current) return undefined;
  const { before, after } = reserved;
  const startedLockout = after.blockedUntil !== null && (before?.blockedUntil ?? null)?.getTime() !== after.blockedUntil.getTime();
  if (startedLockout) {
    const untouched =
      current.blockedUntil?.getTime() === after.blockedUntil?.getTime() &&
      current.lockouts === after.lockouts &&
      current.failures === after.failures;
    if (!untouched) return undefined;
    return before ?? { failures: 0, windowStartedAt: now, blockedUntil: null, lockouts: 0, updatedAt: now };
  }
  if (current.windowStartedAt.getTime() !== after.windowStartedAt.getTime() || current.failures === 0) return undefined;
  return { ...current, failures: current.failures - 1 };
}

/**
 * One attempt, counted as a failure before its credential is checked (so that a parallel burst cannot
 * check more than the limit). It stays counted unless the caller says it succeeded or was no guess.
 */
export class ThrottleAttempt {
  private settled = false;

  constructor(
    private readonly throttle: Throttle,
    readonly reserved: ReservedKey[],
  ) {}

  /** The credential was right: this client's account counters are cleared, the wider ones get the attempt back. */
  async succeeded(): Promise<void> {
    if (this.settle()) await this.throttle.giveBack(this.reserved, CLEARED_ON_SUCCESS);
  }

  /** Nothing was guessed (e.g. the second factor was not sent yet): every counter gets the attempt back. */
  async refund(): Promise<void> {
    if (this.settle()) await this.throttle.giveBack(this.reserved, new Set());
  }

  private settle(): boolean {
    const first = !this.settled;
    this.settled = true;
    return first;
  }
}

/**
 * Counts failures (logins, PINs, TOTP codes, one-time tokens) and mail requests in Postgres, so that every
 * replica sees the same counts. Credential checks reserve their attempt first (`reserve`): the attempt is
 * counted atomically, under row locks, before anything is verified, and given back on success; a blocked
 * subject gets 429 with Retry-After before any password is checked.
 */
export class Throttle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly clock: Clock,
    private readonly rules: Record<ThrottleScope, ThrottleRule>,
  ) {}

  /** A key of `scope` for `value`: an email, a client address (keyed by its network), or both for `account_address`. */
  static key(scope: ThrottleScope, value: string): ThrottleKey {
    const subject = ADDRESS_SCOPES.has(scope) ? clientNetwork(value) : value;
    return { scope, subject: tokenDigest(`${scope}:${subject}`) };
  }

  /** One account tried from one client address (its network). */
  static accountAddressKey(email: string, clientAddress: string): ThrottleKey {
    return { scope: "account_address", subject: tokenDigest(`account_address:${email}\n${clientNetwork(clientAddress)}`) };
  }

  /** The keys a login (password, TOTP, PIN) counts against: account and address together, the account's total, the address. */
  static loginKeys(email: string, clientAddress: string): ThrottleKey[] {
    return [Throttle.accountAddressKey(email, clientAddress), Throttle.key("account", email), Throttle.key("address", clientAddress)];
  }

  /** The keys a recovery path (a mailed token's second factor) counts against. */
  static recoveryKeys(email: string, clientAddress: string): ThrottleKey[] {
    return [Throttle.key("recovery_account", email), Throttle.key("recovery_address", clientAddress)];
  }

  /**
   * Counts one attempt against every key at once, or none when any is blocked (429). Call it before
   * checking the credential; settle the attempt with `succeeded` or `refund`, or leave it counted.
   */
  async reserve(keys: ThrottleKey[]): Promise<ThrottleAttempt> {
    // A blocked subject costs one read, no write and no lock.
    await this.assertAllowed(keys);
    const now = this.clock.now();
    let wait = 0;
    const reserved: ReservedKey[] = [];
    await this.store.update(keys, (states) => {
      wait = Math.max(0, ...states.map((state) => blockedForSeconds(state, now)));
      if (wait > 0) return undefined;
      return states.map((before, index) => {
        const key = keys[index]!;
        const after = afterFailure(before, this.rules[key.scope], now);
        reserved.push({ key, before, after });
        return after;
      });
    });
    if (wait > 0) throw new RateLimitedError(wait, "Too many attempts; try again later.");
    return new ThrottleAttempt(this, reserved);
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

  /**
   * Counts a failure after the fact. Only for checks that cannot be raced into more guesses (an unknown
   * 256-bit token); a credential that can be guessed reserves its attempt with `reserve` instead.
   */
  async recordFailure(keys: ThrottleKey[]): Promise<void> {
    const now = this.clock.now();
    await this.store.update(keys, (states) => states.map((state, index) => afterFailure(state, this.rules[keys[index]!.scope], now)));
  }

  /** Counts a request that may send mail; 429 once the client address has asked for too many. */
  async admitMailRequest(clientAddress: string): Promise<void> {
    await this.reserve([Throttle.key("mail_address", clientAddress)]);
  }

  /** Whether one more mail of this kind may go to this recipient; past the quota it is dropped without a word. */
  async admitMailTo(kind: string, recipient: string): Promise<boolean> {
    const key = Throttle.key("mail_recipient", `${kind}:${recipient}`);
    const now = this.clock.now();
    let admitted = false;
    // Decided under the row lock, so concurrent requests cannot all slip through below the quota.
    await this.store.update([key], ([state]) => {
      admitted = blockedForSeconds(state, now) === 0;
      return admitted ? [afterFailure(state, this.rules.mail_recipient, now)] : undefined;
    });
    return admitted;
  }

  /** Clears a subject's failures (never an address's: an attacker would log into their own account to reset it). */
  async recordSuccess(key: ThrottleKey): Promise<void> {
    await this.store.clear([key]);
  }

  /** Gives reserved attempts back: keys of the `cleared` scopes are cleared, the others lose the one failure. */
  async giveBack(reserved: ReservedKey[], cleared: ReadonlySet<ThrottleScope>): Promise<void> {
    const toClear = reserved.filter((entry) => cleared.has(entry.key.scope));
    const toRefund = reserved.filter((entry) => !cleared.has(entry.key.scope));
    if (toClear.length) await this.store.clear(toClear.map((entry) => entry.key));
    if (toRefund.length) {
      const now = this.clock.now();
      await this.store.update(
        toRefund.map((entry) => entry.key),
        (states) => states.map((state, index) => withoutReservation(state, toRefund[index]!, now) ?? state),
      );
    }
  }
}
