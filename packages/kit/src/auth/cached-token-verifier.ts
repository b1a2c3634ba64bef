import { BoundedCache } from "../bounded-cache.js";
import type { AccessTokenVerifier, Caller } from "./token-verifier.js";

export interface CachedTokenVerifierOptions {
  /** Longest time a verified token is trusted without checking it again. */
  maxAgeMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Remembers tokens that verified, keyed by the exact token text, until they expire or for
 * `maxAgeMs`, whichever comes first. A client sends the same access token for its whole
 * lifetime (15 min), and a full check (an RSA or ECDSA signature) costs more than most requests' own work. Only
 * successes are remembered: a bad token is checked (and refused) every time. The gateway and every service keep
 * one: a key withdrawn from the JWKS stops being accepted at most `maxAgeMs` later.
 */
export class CachedTokenVerifier implements AccessTokenVerifier {
  private readonly verified: BoundedCache<string, Caller>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: AccessTokenVerifier,
    options: CachedTokenVerifierOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.verified = new BoundedCache({ maxEntries: options.maxEntries ?? 10_000, now: this.now });
  }

  async verify(token: string): Promise<Caller> {
    const now = this.now();
    const hit = this.verified.get(token);
    if (hit) return hit;
    const caller = await this.inner.verify(token);
    this.verified.set(token, caller, Math.min(caller.expiresAt * 1000, now + this.maxAgeMs));
    return caller;
  }

  get size(): number {
    return this.verified.size;
  }
}
