import { randomUUID } from "node:crypto";
import jwt from "jsonwebtoken";
import { type Clock, epochSeconds } from "./clock.js";
import type { SigningKeys } from "./signing-keys.js";

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

/** How the user proved who they are (RFC 8176 style); API.md lists the values. */
export type AuthenticationMethod = "pwd" | "otp" | "magic" | "social" | "invite";

export interface AccessTokenSubject {
  id: string;
  email: string;
}

/** Signs the short-lived JWTs the gateway and every service verify through the JWKS. */
export class AccessTokenIssuer {
  constructor(
    private readonly keys: SigningKeys,
    private readonly clock: Clock,
    private readonly claims: { issuer: string; audience: string },
  ) {}

  async issue(user: AccessTokenSubject, amr: string[]): Promise<{ token: string; expiresIn: number }> {
    const key = await this.keys.active();
    const iat = epochSeconds(this.clock.now());
    const token = jwt.sign(
      { sub: user.id, email: user.email, amr, jti: randomUUID(), iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS },
      key.privateKey,
      { algorithm: key.alg, keyid: key.kid, issuer: this.claims.issuer, audience: this.claims.audience },
    );
    return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
  }
}
