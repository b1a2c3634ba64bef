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
/**
 * How old an id_token sent without a nonce may be (its `iat`). Nothing then binds it to this client's sign-in, so
 * a leaked one is only good until it is used once or this has passed, whatever its `exp` says.
 */
export const UNBOUND_ID_TOKEN_MAX_AGE_SECONDS = 5 * 60;

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
 * The `nonce` claims a client's nonce may have produced: SHA-256 of it, base64url (no padding) or hex, or the
 * nonce itself (API.md). A client that keeps the nonce and sends only its hash to the issuer makes a leaked
 * id_token useless without it; one that sent the nonce itself still gets its token bound to its sign-in.
 */
export function nonceClaimsFor(nonce: string): string[] {
  const hash = createHash("sha256").update(nonce, "utf8").digest();
  return [hash.toString("base64url"), hash.toString("hex"), nonce];
}

/**
 * Verifies OpenID Connect id_tokens of the issuers in SOCIAL_OIDC_ISSUERS: signature by a key of
 * the issuer's JWKS, `iss` exactly one of them, `aud` that issuer's audience, `exp`, a verified email
 * equal to the one the client claims. With a nonce, the `nonce` claim must be made from it; without one (the
 * spec's body), the token must have been issued within UNBOUND_ID_TOKEN_MAX_AGE_SECONDS, and an issuer with
 * `require_nonce` refuses it.
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
  async verify(idToken: string, claimedEmail: string, nonce: string | undefined): Promise<VerifiedIdToken> {
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
    if (nonce !== undefined) {
      if (typeof claims.nonce !== "string") throw authErrors.invalidIdToken("it has no nonce");
      if (!nonceClaimsFor(nonce).includes(claims.nonce)) throw authErrors.invalidIdToken("its nonce is not the one of this login");
    } else {
      if (issuer.require_nonce) throw authErrors.invalidIdToken("its issuer requires the nonce of this login in the body");
      this.requireFresh(claims);
    }
    return {
      email: normalizeEmail(claims.email),
      digest: tokenDigest(idToken),
      usedAt: this.clock.now(),
      expiresAt: new Date((claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000),
    };
  }

  /** An id_token without a nonce: issued (`iat`) within UNBOUND_ID_TOKEN_MAX_AGE_SECONDS, and not in the future. */
  private requireFresh(claims: JwtPayload): void {
    if (typeof claims.iat !== "number") throw authErrors.invalidIdToken("it has no iat, and no nonce binds it to this login");
    const age = epochSeconds(this.clock.now()) - claims.iat;
    if (age < -CLOCK_TOLERANCE_SECONDS) throw authErrors.invalidIdToken("it was issued in the future");
    if (age > UNBOUND_ID_TOKEN_MAX_AGE_SECONDS + CLOCK_TOLERANCE_SECONDS) {
      throw authErrors.invalidIdToken(
        `it was issued more than ${UNBOUND_ID_TOKEN_MAX_AGE_SECONDS / 60} minutes ago; send a fresh one, or the nonce of this login`,
      );
    }
  }
}
