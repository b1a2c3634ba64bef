import { randomUUID } from "node:crypto";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import type { SessionStore } from "../store/session-store.js";
import type { UserStore } from "../store/user-store.js";
import type { AccessTokenIssuer, AccessTokenSubject } from "./access-tokens.js";
import { authErrors } from "./auth-errors.js";
import { addSeconds, type Clock } from "./clock.js";
import { randomToken, tokenDigest } from "./secrets.js";

/** Absolute: a family ends 30 days after its login, however often it is refreshed. */
export const REFRESH_TTL_SECONDS = 30 * 24 * 3600;

export interface RefreshFamily {
  id: string;
  userId: string;
  amr: string[];
  createdAt: Date;
  expiresAt: Date;
}

export interface RefreshTokenRecord {
  familyId: string;
  rotatedAt: Date | null;
  userId: string;
  amr: string[];
  expiresAt: Date;
  revokedAt: Date | null;
}

/** What a successful login or refresh hands out (TokenResponseDto at the HTTP edge). */
export interface IssuedTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
  otpTrustedSource?: string;
}

type RefreshOutcome =
  | { kind: "invalid" }
  | { kind: "reused" }
  | { kind: "rotated"; user: AccessTokenSubject; amr: string[]; refreshToken: string; expiresAt: Date; now: Date };

/**
 * Sessions: a refresh-token family per login. Refresh tokens are opaque, stored as digests, single
 * use and rotated on every refresh. A used token presented again after the grace window revokes the
 * whole family (someone holds a copy); within the window it is only refused, since that is what two
 * tabs refreshing at once look like.
 */
export class Sessions {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly store: SessionStore,
    private readonly users: UserStore,
    private readonly accessTokens: AccessTokenIssuer,
    private readonly clock: Clock,
    private readonly reuseGraceSeconds: number,
  ) {}

  /** Opens a family in `tx` (or its own transaction) and issues its first tokens. */
  async start(tx: Tx | undefined, user: AccessTokenSubject, amr: string[]): Promise<IssuedTokens> {
    const now = this.clock.now();
    const family: RefreshFamily = {
      id: randomUUID(),
      userId: user.id,
      amr,
      createdAt: now,
      expiresAt: addSeconds(now, REFRESH_TTL_SECONDS),
    };
    const refreshToken = randomToken();
    if (tx) await this.store.createFamily(tx, family, tokenDigest(refreshToken));
    else await this.sql.transaction((own) => this.store.createFamily(own, family, tokenDigest(refreshToken)));
    return this.tokens(user, amr, refreshToken, family.expiresAt, now);
  }

  async refresh(refreshToken: string): Promise<IssuedTokens> {
    const digest = tokenDigest(refreshToken);
    const outcome = await this.sql.transaction(async (tx): Promise<RefreshOutcome> => {
      const now = this.clock.now();
      const record = await this.store.findTokenForUpdate(tx, digest);
      if (!record || record.revokedAt || record.expiresAt <= now) return { kind: "invalid" };
      if (record.rotatedAt) {
        if (now.getTime() - record.rotatedAt.getTime() > this.reuseGraceSeconds * 1000) {
          await this.store.revokeFamily(tx, record.familyId, "reuse", now);
        }
        return { kind: "reused" };
      }
      const user = await this.users.findById(record.userId, tx);
      if (!user || user.status === "deactivated") return { kind: "invalid" };
      await this.store.markRotated(tx, digest, now);
      const next = randomToken();
      await this.store.addToken(tx, record.familyId, tokenDigest(next), now);
      return { kind: "rotated", user, amr: record.amr, refreshToken: next, expiresAt: record.expiresAt, now };
    });
    if (outcome.kind === "invalid") throw authErrors.invalidRefreshToken();
    if (outcome.kind === "reused") throw authErrors.refreshTokenReused();
    return this.tokens(outcome.user, outcome.amr, outcome.refreshToken, outcome.expiresAt, outcome.now);
  }

  /** Ends the session the token belongs to; an unknown token is not an error. */
  async logout(refreshToken: string): Promise<void> {
    await this.store.revokeFamilyOfToken(tokenDigest(refreshToken), "logout", this.clock.now());
  }

  /** Ends every session of the user (password change). */
  async revokeAll(tx: Tx, userId: string, reason: string): Promise<void> {
    await this.store.revokeFamiliesOf(tx, userId, reason, this.clock.now());
  }

  /** `refreshExpiresIn` is what is left of the family: 30 days at login, less after each refresh. */
  private async tokens(user: AccessTokenSubject, amr: string[], refreshToken: string, expiresAt: Date, now: Date): Promise<IssuedTokens> {
    const access = await this.accessTokens.issue(user, amr);
    return {
      accessToken: access.token,
      expiresIn: access.expiresIn,
      refreshToken,
      refreshExpiresIn: Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)),
    };
  }
}
