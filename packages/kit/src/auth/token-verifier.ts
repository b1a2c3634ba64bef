import type { RequestHandler } from "express";
import jwt, { type JwtHeader, type JwtPayload } from "jsonwebtoken";
import { UnauthorizedError, UpstreamError } from "../errors.js";
import { JwksKeySet } from "./jwks-key-set.js";

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
  /** Least time between two JWKS fetches caused by unknown `kid`s (and how long a failed fetch is remembered); 30 s. */
  jwksCooldownMs?: number;
  /** Age after which the JWKS is refetched in the background; 10 min. */
  jwksMaxAgeMs?: number;
}

const ALLOWED_ALGORITHMS: jwt.Algorithm[] = ["RS256", "ES256"];

/**
 * Verifies access tokens against the auth service's JWKS. The whole key set is cached
 * (`JwksKeySet`): an unknown `kid` refetches it at most once per cooldown whatever the kid,
 * so forged kids can neither flood auth nor keep a valid token's key from being found.
 */
export class TokenVerifier implements AccessTokenVerifier {
  readonly keySet: JwksKeySet;
  private readonly algorithms: jwt.Algorithm[];

  constructor(private readonly options: TokenVerifierOptions) {
    this.algorithms = (options.algorithms ?? ALLOWED_ALGORITHMS).filter((alg) => ALLOWED_ALGORITHMS.includes(alg));
    this.keySet = new JwksKeySet({ uri: options.jwksUri, cooldownMs: options.jwksCooldownMs, maxAgeMs: options.jwksMaxAgeMs });
  }

  async verify(token: string): Promise<Caller> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === "string") throw new UnauthorizedError("The access token is malformed.", "invalid_token");
    const header: JwtHeader = decoded.header;
    if (!header.kid || !this.algorithms.includes(header.alg as jwt.Algorithm)) {
      throw new UnauthorizedError("The access token is not signed with an accepted key.", "invalid_token");
    }
    const published = await this.keySet.keyFor(header.kid);
    if (!published && this.keySet.unreachable) {
      // Auth is away and this key is not among those fetched before: not a verdict on the token.
      throw new UpstreamError(503, "Access tokens cannot be verified right now; try again shortly.", "auth_unavailable");
    }
    if (!published || (published.alg !== undefined && published.alg !== header.alg)) {
      throw new UnauthorizedError("The access token is not signed with an accepted key.", "invalid_token");
    }
    const publicKey = published.key;
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

/** Longest access token accepted: auth's are under 1 KiB; anything longer is refused unread. */
export const MAX_ACCESS_TOKEN_BYTES = 8 * 1024;

/** What an `Authorization` header holds: a token, nothing usable (no header, another scheme), or a bearer token that cannot be one. */
export type BearerToken = { token: string } | { problem: "missing" | "malformed" | "too_long" };

const BEARER = "bearer";

/** base64url and padding: what the three segments of a compact JWS consist of. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || // 0-9
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    code === 0x2d || // -
    code === 0x5f || // _
    code === 0x3d // =
  );
}

const isSpace = (code: number) => code === 0x20 || code === 0x09;

/**
 * Reads `Bearer <header>.<payload>.<signature>` in one pass over the characters, without a
 * regular expression (a backtracking one was quadratic on crafted headers). A header longer
 * than a token can be is refused by its length before it is looked at.
 */
export function readBearerToken(header: string | undefined): BearerToken {
  if (header === undefined) return { problem: "missing" };
  if (header.length > BEARER.length + 16 + MAX_ACCESS_TOKEN_BYTES) {
    return header.slice(0, BEARER.length).toLowerCase() === BEARER ? { problem: "too_long" } : { problem: "missing" };
  }
  let i = 0;
  const end = header.length;
  while (i < end && isSpace(header.charCodeAt(i))) i++;
  if (header.slice(i, i + BEARER.length).toLowerCase() !== BEARER) return { problem: "missing" };
  i += BEARER.length;
  if (i >= end || !isSpace(header.charCodeAt(i))) return { problem: "missing" };
  while (i < end && isSpace(header.charCodeAt(i))) i++;
  const start = i;
  let dots = 0;
  let segmentLength = 0;
  for (; i < end; i++) {
    const code = header.charCodeAt(i);
    if (isTokenChar(code)) segmentLength++;
    else if (code === 0x2e) {
      // The header and payload segments must not be empty; the signature may be (alg none, refused later anyway).
      if (segmentLength === 0 || ++dots > 2) return { problem: "malformed" };
      segmentLength = 0;
    } else break;
  }
  const token = header.slice(start, i);
  while (i < end && isSpace(header.charCodeAt(i))) i++;
  if (i !== end || dots !== 2) return { problem: token.length === 0 ? "missing" : "malformed" };
  if (token.length > MAX_ACCESS_TOKEN_BYTES) return { problem: "too_long" };
  return { token };
}

/** The bearer token of an `Authorization` header, or undefined when it has none that can be one. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  const read = readBearerToken(header);
  return "token" in read ? read.token : undefined;
}

/** The bearer token of an `Authorization` header; a 401 `UnauthorizedError` when there is none or it cannot be a token. */
export function requireBearerToken(header: string | undefined): string {
  const read = readBearerToken(header);
  if ("token" in read) return read.token;
  switch (read.problem) {
    case "missing":
      throw new UnauthorizedError("A bearer access token is required.", "missing_token");
    case "too_long":
      throw new UnauthorizedError(`The access token is longer than ${MAX_ACCESS_TOKEN_BYTES} bytes.`, "invalid_token");
    case "malformed":
      throw new UnauthorizedError("The access token is malformed.", "invalid_token");
  }
}

/** Express middleware: 401 problem+json unless the bearer token verifies; sets `req.caller`. */
export function authenticate(verifier: AccessTokenVerifier): RequestHandler {
  return async (req, _res, next) => {
    try {
      const token = requireBearerToken(req.headers.authorization);
      // Verified already before the body was read (a route with a large body, see createHttpApp).
      if (req.caller?.token === token) return next();
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

/** Who acts, as the domain sees it: the verified user and the request the work belongs to. */
export interface Actor {
  userId: string;
  requestId: string;
}

/** The actor of a request that passed `authenticate`. */
export function actorOf(req: { caller?: Caller; requestId: string }): Actor {
  return { userId: callerOf(req).userId, requestId: req.requestId };
}
