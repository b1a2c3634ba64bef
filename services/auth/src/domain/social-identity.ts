import jwt, { type JwtPayload } from "jsonwebtoken";
import { JwksClient } from "jwks-rsa";
import type { SocialIssuer } from "../config.js";
import { authErrors } from "./auth-errors.js";
import { type Clock, epochSeconds } from "./clock.js";
import { normalizeEmail } from "./users.js";

/** Asymmetric algorithms only: `none` and HMAC (keyed with a public key) are refused. */
const ACCEPTED_ALGORITHMS: jwt.Algorithm[] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];

/**
 * Verifies OpenID Connect id_tokens of the issuers in SOCIAL_OIDC_ISSUERS: signature by a key of
 * the issuer's JWKS, `iss` exactly one of them, `aud` that issuer's audience, `exp`, and a verified
 * email equal to the one the client claims.
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

  /** The verified email (normalized), or 401 invalid_id_token saying which check failed. */
  async verify(idToken: string, claimedEmail: string): Promise<string> {
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
        clockTolerance: 30,
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
    return normalizeEmail(claims.email);
  }
}
