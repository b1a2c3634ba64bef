import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from "node:crypto";
import { SealedWithAnotherKeyError } from "@docex/kit/crypto";
import type { SigningKeyStore } from "../store/signing-key-store.js";
import { addSeconds, type Clock } from "./clock.js";
import type { SealingKey } from "./secrets.js";

export const SIGNING_ALGORITHM = "ES256";

export interface StoredSigningKey {
  kid: string;
  alg: typeof SIGNING_ALGORITHM;
  publicJwk: JsonWebKey;
  sealedPrivateKey: string;
  /** Published (in the JWKS) from here. */
  createdAt: Date;
  /** Signing from here; null while it is the next key, published ahead. */
  activatedAt: Date | null;
  retiredAt: Date | null;
}

export interface PublishedKey extends JsonWebKey {
  kid: string;
  alg: string;
  use: "sig";
}

export interface ActiveSigningKey {
  kid: string;
  alg: typeof SIGNING_ALGORITHM;
  privateKey: KeyObject;
}

export interface SigningKeysOptions {
  rotationIntervalSeconds: number;
  /** Lifetime of the tokens the keys sign: a retired key stays published at least this long. */
  tokenTtlSeconds: number;
  /** How long an instance keeps using what it read; also added to the publication of retired keys. */
  cacheSeconds?: number;
  /**
   * How long the next key is published before it signs: longer than verifiers take to refetch the JWKS on
   * their own (the kit's key set: 10 min, plus its 30 s cooldown, the JWKS's max-age and skew), so that
   * the first token of a new key never meets a verifier that has to fetch it, or may not yet. 15 min.
   */
  prepublicationSeconds?: number;
}

interface Snapshot {
  loadedAt: number;
  active: ActiveSigningKey;
  published: PublishedKey[];
}

/** Allowance for clocks of instances and verifiers that disagree a little. */
const SKEW_SECONDS = 60;

/**
 * The ES256 keys that sign access tokens. The first instance to start creates one; the next key is
 * published in the JWKS a while before the active one is due, and replaces it once the active one is
 * older than the rotation interval and the next one has been published for `prepublicationSeconds`. A
 * retired key stays in the JWKS until every token it signed has expired, counting the time other
 * instances may still hold it in cache. Private keys are stored sealed with the key-encryption key.
 */
export class SigningKeys {
  private snapshot: Snapshot | undefined;
  private loading: Promise<Snapshot> | undefined;
  private readonly cacheSeconds: number;
  private readonly prepublicationSeconds: number;

  constructor(
    private readonly store: SigningKeyStore,
    private readonly sealing: SealingKey,
    private readonly clock: Clock,
    private readonly options: SigningKeysOptions,
  ) {
    this.cacheSeconds = options.cacheSeconds ?? 60;
    // Never more than half the interval, so that a short rotation (tests) still rotates.
    this.prepublicationSeconds = Math.min(options.prepublicationSeconds ?? 15 * 60, options.rotationIntervalSeconds / 2);
  }

  async active(): Promise<ActiveSigningKey> {
    return (await this.current()).active;
  }

  async jwks(): Promise<{ keys: PublishedKey[] }> {
    return { keys: (await this.current()).published };
  }

  /** Replaces the active key now (an operator's rotation after a leak): no waiting for verifiers to know the new one. */
  async rotate(): Promise<void> {
    await this.store.replaceActive(this.clock.now(), () => generateSigningKey(this.sealing));
    this.snapshot = undefined;
  }

  /** How long retired keys stay published: a token's lifetime, plus caches, plus skew. */
  get publicationSeconds(): number {
    return this.options.tokenTtlSeconds + this.cacheSeconds + SKEW_SECONDS;
  }

  private async current(): Promise<Snapshot> {
    const snapshot = this.snapshot;
    if (snapshot && this.clock.now().getTime() - snapshot.loadedAt < this.cacheSeconds * 1000) return snapshot;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<Snapshot> {
    const now = this.clock.now();
    const retiredSince = addSeconds(now, -this.publicationSeconds);
    let keys = await this.store.list(retiredSince);
    if (await this.rotateIfDue(keys, now)) keys = await this.store.list(retiredSince);
    const active = keys.find((key) => key.retiredAt === null && key.activatedAt !== null);
    if (!active) throw new Error("No active signing key after rotation.");
    const privateKey = createPrivateKey(this.openPrivateKey(active));
    this.snapshot = {
      loadedAt: now.getTime(),
      active: { kid: active.kid, alg: active.alg, privateKey },
      published: keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg, use: "sig" })),
    };
    return this.snapshot;
  }

  /** Creates the first key, publishes the next one, or lets the next one sign, when due; true when it changed anything. */
  private async rotateIfDue(keys: StoredSigningKey[], now: Date): Promise<boolean> {
    const make = () => generateSigningKey(this.sealing);
    const active = keys.find((key) => key.retiredAt === null && key.activatedAt !== null);
    const next = keys.find((key) => key.activatedAt === null);
    if (!active?.activatedAt) {
      await this.store.createFirst(now, make);
      return true;
    }
    const age = (now.getTime() - active.activatedAt.getTime()) / 1000;
    const rotation = this.options.rotationIntervalSeconds;
    if (!next) {
      if (age < rotation - this.prepublicationSeconds) return false;
      await this.store.prepareNext(now, make);
      return true;
    }
    const publishedFor = (now.getTime() - next.createdAt.getTime()) / 1000;
    if (age < rotation || publishedFor < this.prepublicationSeconds) return false;
    await this.store.promoteNext(addSeconds(now, -rotation), addSeconds(now, -this.prepublicationSeconds), now);
    return true;
  }

  private openPrivateKey(key: StoredSigningKey): string {
    try {
      return this.sealing.open(key.sealedPrivateKey, sealingContext(key.kid));
    } catch {
      throw new SealedWithAnotherKeyError(
        "AUTH_KEY_ENCRYPTION_KEY",
        `AUTH_KEY_ENCRYPTION_KEY does not open the stored signing key ${key.kid}: it is not the key the signing keys were sealed with.`,
      );
    }
  }
}

function sealingContext(kid: string): string {
  return `signing-key:${kid}`;
}

/** A fresh P-256 key; its kid is the RFC 7638 thumbprint of the public key. */
export function generateSigningKey(sealing: SealingKey): Omit<StoredSigningKey, "createdAt" | "activatedAt" | "retiredAt"> {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const publicJwk: JsonWebKey = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = createHash("sha256")
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest("base64url");
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  return { kid, alg: SIGNING_ALGORITHM, publicJwk, sealedPrivateKey: sealing.seal(pem, sealingContext(kid)) };
}
