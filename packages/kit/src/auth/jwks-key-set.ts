import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";

export interface JwksKeySetOptions {
  /** Where the issuer publishes its keys (`{ keys: [JWK, ...] }`). */
  uri: string;
  /**
   * Least time between two fetches that unknown `kid`s cause, whatever the kids; a failed fetch is
   * remembered for as long (no fetch is retried before it ends). 30 s by default.
   */
  cooldownMs?: number;
  /** Age after which the set is refetched in the background while the cached keys keep serving. 10 min by default. */
  maxAgeMs?: number;
  timeoutMs?: number;
  /** A larger answer is a failed fetch; a key set is a few KiB. */
  maxResponseBytes?: number;
  /** Keys past this many in one answer are ignored. */
  maxKeys?: number;
  /** Told about each failed fetch (the key set stays as it was). */
  onFetchFailed?: (error: unknown) => void;
  now?: () => number;
}

export interface PublishedVerificationKey {
  key: KeyObject;
  /** The JWK's `alg`, when it names one: a token's header must then name the same. */
  alg?: string;
}

/**
 * The issuer's whole key set, cached. A `kid` that the set does not hold causes at most one
 * refetch per cooldown, whoever sends it and whatever the kid; concurrent refetches are one;
 * a failed fetch counts as a fetch and keeps the previous keys. So forged kids can cost the
 * issuer one request per cooldown and can never use up what a valid token needs: a key the
 * set holds is answered from memory, and a key added at the issuer (a rotation) is found by
 * the next refetch, at most one cooldown later.
 */
export class JwksKeySet {
  private keys = new Map<string, PublishedVerificationKey>();
  /** When the last successful fetch started. */
  private fetchedAt: number | undefined;
  /** When the last fetch, successful or not, started. */
  private attemptedAt: number | undefined;
  private inFlight: Promise<void> | undefined;
  private fetches = 0;
  private lastFetchFailed = false;
  private readonly cooldownMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(private readonly options: JwksKeySetOptions) {
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Whether the last fetch failed: a kid not found may then be one the issuer publishes now. */
  get unreachable(): boolean {
    return this.lastFetchFailed;
  }

  /** How many fetches were started, successful or not. */
  get fetchCount(): number {
    return this.fetches;
  }

  /** The key published under `kid`, or undefined when the issuer does not publish it (as far as a fetch allowed now can tell). */
  async keyFor(kid: string): Promise<PublishedVerificationKey | undefined> {
    if (this.fetchedAt === undefined) await this.refresh();
    else if (this.now() - this.fetchedAt >= this.maxAgeMs) void this.refresh();
    const known = this.keys.get(kid);
    if (known) return known;
    await this.refresh();
    return this.keys.get(kid);
  }

  /** Starts a fetch unless one runs (then it is joined) or the cooldown since the last one has not passed (then nothing). */
  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const now = this.now();
    if (this.attemptedAt !== undefined && now - this.attemptedAt < this.cooldownMs) return Promise.resolve();
    this.attemptedAt = now;
    this.fetches += 1;
    this.inFlight = this.fetchKeys().then(
      (keys) => {
        this.keys = keys;
        this.fetchedAt = now;
        this.lastFetchFailed = false;
      },
      (error: unknown) => {
        this.lastFetchFailed = true;
        this.options.onFetchFailed?.(error);
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<Map<string, PublishedVerificationKey>> {
    const response = await fetch(this.options.uri, {
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 3_000),
      headers: { accept: "application/json" },
      redirect: "error",
    });
    if (!response.ok) throw new Error(`The JWKS answered ${response.status}.`);
    const text = await readLimited(response, this.options.maxResponseBytes ?? 256 * 1024);
    const body = JSON.parse(text) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error("The JWKS has no keys array.");
    const keys = new Map<string, PublishedVerificationKey>();
    for (const jwk of body.keys.slice(0, this.options.maxKeys ?? 100)) {
      const parsed = verificationKeyOf(jwk);
      if (parsed) keys.set(parsed.kid, parsed.published);
    }
    return keys;
  }
}

/** A signing key of the set, or undefined for anything else (encryption keys, symmetric keys, junk). */
function verificationKeyOf(jwk: unknown): { kid: string; published: PublishedVerificationKey } | undefined {
  if (typeof jwk !== "object" || jwk === null) return undefined;
  const { kid, kty, use, alg } = jwk as { kid?: unknown; kty?: unknown; use?: unknown; alg?: unknown };
  if (typeof kid !== "string" || !kid || (kty !== "RSA" && kty !== "EC")) return undefined;
  if (use !== undefined && use !== "sig") return undefined;
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
    return { kid, published: { key, alg: typeof alg === "string" ? alg : undefined } };
  } catch {
    return undefined;
  }
}

async function readLimited(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > limit) throw new Error("The JWKS is larger than accepted.");
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > limit) throw new Error("The JWKS is larger than accepted.");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
