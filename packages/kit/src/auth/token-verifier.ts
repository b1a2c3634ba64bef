import { createPublicKey, type KeyObject } from "node:crypto";
import type { RequestHandler } from "express";
import jwt, { type JwtHeader, type JwtPayload } from "jsonwebtoken";
import { JwksClient } from "jwks-rsa";
import { UnauthorizedError } from "../errors.js";

/** The verified user behind a request. */
export interface Caller {
  userId: string;
  email: string;
  amr: string[];
  tokenId: string;
  expiresAt: number;
  /** The raw bearer token, forwarded to other services when they must act as the caller. */
  token: string;
}

/** What checks an access token: the JWKS-backed `TokenVerifier`, a cache in front of it, or the auth service's own key store. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<Caller>;
}

export interface TokenVerifierOptions {
  jwksUri: string;
  issuer: string;
  audience: string;
  /** Pinned; anything else (none, HS256 with a public key, ...) is refused. */
  algorithms?: jwt.Algorithm[];
  /** Allowed clock skew in seconds. */
  clockToleranceSeconds?: number;
}

const ALLOWED_ALGORITHMS: jwt.Algorithm[] = ["RS256", "ES256"];
const KEY_CACHE_MS = 10 * 60_000;

/**
 * Verifies access tokens against the auth service's JWKS. Keys are cached; a token with an
 * unknown `kid` triggers a refetch, rate limited so that forged kids cannot flood auth.
 */
export class TokenVerifier implements AccessTokenVerifier {
  private readonly jwks: JwksClient;
  private readonly algorithms: jwt.Algorithm[];
  /** Parsed keys by kid, for as long as the JWKS cache keeps them: parsing a PEM costs more than verifying a signature. */
  private readonly keys = new Map<string, { key: KeyObject; until: number }>();

  constructor(private readonly options: TokenVerifierOptions) {
    this.algorithms = (options.algorithms ?? ALLOWED_ALGORITHMS).filter((alg) => ALLOWED_ALGORITHMS.includes(alg));
    this.jwks = new JwksClient({
      jwksUri: options.jwksUri,
      cache: true,
      cacheMaxEntries: 20,
      cacheMaxAge: KEY_CACHE_MS,
      rateLimit: true,
      jwksRequestsPerMinute: 30,
      timeout: 3_000,
    });
  }

  private async publicKeyOf(kid: string): Promise<KeyObject> {
    const cached = this.keys.get(kid);
    if (cached && cached.until > Date.now()) return cached.key;
    let key: KeyObject;
    try {
      key = createPublicKey((await this.jwks.getSigningKey(kid)).getPublicKey());
    } catch {
      throw new UnauthorizedError("The access token is not signed with an accepted key.", "invalid_token");
    }
    if (this.keys.size >= 50) this.keys.clear();
    this.keys.set(kid, { key, until: Date.now() + KEY_CACHE_MS });
    return key;
  }

  async verify(token: string): Promise<Caller> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === "string") throw new UnauthorizedError("The access token is malformed.", "invalid_token");
    const header: JwtHeader = decoded.header;
    if (!header.kid || !this.algorithms.includes(header.alg as jwt.Algorithm)) {
      throw new UnauthorizedError("The access token is not signed with an accepted key.", "invalid_token");
    }
    const publicKey = await this.publicKeyOf(header.kid);
    let payload: JwtPayload;
    try {
      payload = jwt.verify(token, publicKey, {
        algorithms: this.algorithms,
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTolerance: this.options.clockToleranceSeconds ?? 5,
      }) as JwtPayload;
    } catch (error) {
      const expired = error instanceof jwt.TokenExpiredError;
      throw new UnauthorizedError(
        expired ? "The access token has expired." : "The access token is invalid.",
        expired ? "token_expired" : "invalid_token",
      );
    }
    if (typeof payload.exp !== "number" || typeof payload.sub !== "string" || !payload.sub) {
      throw new UnauthorizedError("The access token lacks required claims.", "invalid_token");
    }
    return {
      userId: payload.sub,
      email: typeof payload.email === "string" ? payload.email : "",
      amr: Array.isArray(payload.amr) ? payload.amr.map(String) : [],
      tokenId: typeof payload.jti === "string" ? payload.jti : "",
      expiresAt: payload.exp,
      token,
    };
  }
}

export function bearerTokenOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+([A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.?[A-Za-z0-9\-_.+/=]*)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/** Express middleware: 401 problem+json unless the bearer token verifies; sets `req.caller`. */
export function authenticate(verifier: AccessTokenVerifier): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerTokenOf(req.headers.authorization);
    if (!token) return next(new UnauthorizedError("A bearer access token is required.", "missing_token"));
    try {
      req.caller = await verifier.verify(token);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The verified caller of a request that passed `authenticate`. */
export function callerOf(req: { caller?: Caller }): Caller {
  if (!req.caller) throw new UnauthorizedError();
  return req.caller;
}
