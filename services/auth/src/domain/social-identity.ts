import { createHash } from "node:crypto";
import jwt, { type JwtPayload } from "jsonwebtoken";
import { JwksClient } from "jwks-rsa";
import type { SocialIssuer } from "../config.js";
import { authErrors } from "./auth-errors.js";
import { type Clock, epochSeconds } from "./clock.js";
import { tokenDigest } from "./secrets.js";
import { normalizeEmail } from "./users.js";

/** Asymmetric algorithms only: `none` and HMAC (keyed with a public key) are refused. */
const ACCEPTED_ALGORITHMS: jwt.Algorithm[] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];
const CLOCK_TOLERANCE_SECONDS = 30;

/** An id_token that passed every check, with what makes it single-use. */
export interface VerifiedIdToken {
  /** The verified email, normalized. */
  email: string;
  /** SHA-256 of the whole token: the key under which its use is remembered. */
  digest: Buffer;
  usedAt: Date;
  /** Until when it could still verify (exp plus the clock tolerance); its use is remembered that long. */
  expiresAt: Date;
}

/**
 * The `nonce` claim a client's nonce must have produced: SHA-256 of it, base64url (no padding) or hex.
 * The client keeps the nonce itself and sends only its hash to the issuer, so an id_token that leaks (a
 * log, a referrer, another relying party of the same issuer) cannot be used without it.
 */
export function nonceClaimsFor(nonce: string): string[] {
  const hash = createHash("sha256").update(nonce, "utf8").digest();
  return [hash.toString("base64url"), hash.toString("hex")];
}

/**
 * Verifies OpenID Connect id_tokens of the issuers in SOCIAL_OIDC_ISSUERS: signature by a key of
 * the issuer's JWKS, `iss` exactly one of them, `aud` that issuer's audience, `exp`, a verified email
 * equal to the one the client claims, and a `nonce` claim made from the nonce the client sends along.
 */
export class SocialIdentityVerifier {
  private readonly clients = new Map<string, JwksClient>();

  constructor(
    private readonly issuers: SocialIssuer[],
    private readonly clock: Clock,
  ) {
    for (const issuer of issuers) {
      this.clients.set(
        issuer.issuer,
        new JwksClient({
          jwksUri: issuer.jwks_uri,
          cache: true,
          cacheMaxAge: 10 * 60_000,
          rateLimit: true,
          jwksRequestsPerMinute: 10,
          timeout: 3_000,
        }),
      );
    }
  }

  /** The verified token, or 401 invalid_id_token saying which check failed. */
  async verify(idToken: string, claimedEmail: string, nonce: string): Promise<VerifiedIdToken> {
    const decoded = jwt.decode(idToken, { complete: true });
    if (!decoded || typeof decoded.payload === "string") throw authErrors.invalidIdToken("it is not a JWT");
    const issuer = this.issuers.find((candidate) => candidate.issuer === (decoded.payload as JwtPayload).iss);
    const client = issuer && this.clients.get(issuer.issuer);
    if (!issuer || !client) throw authErrors.invalidIdToken("its issuer is not trusted");
    const alg = decoded.header.alg as jwt.Algorithm;
    if (!ACCEPTED_ALGORITHMS.includes(alg)) throw authErrors.invalidIdToken("its algorithm is not accepted");
    let publicKey: string;
    try {
      publicKey = (await client.getSigningKey(decoded.header.kid)).getPublicKey();
    } catch {
      throw authErrors.invalidIdToken("it is not signed by a key of its issuer");
    }
    let claims: JwtPayload;
    try {
      claims = jwt.verify(idToken, publicKey, {
        algorithms: [alg],
        issuer: issuer.issuer,
        audience: issuer.audience,
        clockTimestamp: epochSeconds(this.clock.now()),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }) as JwtPayload;
    } catch (error) {
      const why = error instanceof jwt.TokenExpiredError ? "it has expired" : error instanceof Error ? error.message : "it does not verify";
      throw authErrors.invalidIdToken(why);
    }
    if (typeof claims.exp !== "number") throw authErrors.invalidIdToken("it has no exp");
    if (claims.email_verified !== true && claims.email_verified !== "true") throw authErrors.invalidIdToken("its email is not verified");
    if (typeof claims.email !== "string" || normalizeEmail(claims.email) !== normalizeEmail(claimedEmail)) {
      throw authErrors.invalidIdToken("its email is not the one in the request");
    }
    if (typeof claims.nonce !== "string") throw authErrors.invalidIdToken("it has no nonce");
    if (!nonceClaimsFor(nonce).includes(claims.nonce)) throw authErrors.invalidIdToken("its nonce is not the one of this login");
    return {
      email: normalizeEmail(claims.email),
      digest: tokenDigest(idToken),
      usedAt: this.clock.now(),
      expiresAt: new Date((claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000),
    };
  }
}
