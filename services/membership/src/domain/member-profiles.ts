import type { Logger } from "@docex/kit";
import type { AuthUser, UserDirectory } from "../clients/auth.js";
import type { Member, MembershipStore, Tx } from "../store/membership-store.js";
import { statusChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";

export interface MemberProfilesOptions {
  /** A member's copy of auth's data older than this is refreshed when the member list is read. */
  maxAgeMs?: number;
  /** Members still invited are looked at more often: they become active when they set a password. */
  invitedMaxAgeMs?: number;
  /** Refreshes per read; the rest wait for the next read. */
  maxPerRead?: number;
  concurrency?: number;
}

/**
 * Emails, names and account status of members are auth's. Membership keeps a copy, written when it
 * learns them (invitation, token, onboarding event) and refreshed over gRPC when the member list is read
 * and the copy is old. The membership status mirrors the account: invited until the user sets a
 * password, deactivated while auth has the account deactivated. If auth does not answer, the copy is
 * served as it is.
 */
export class MemberProfiles {
  private readonly maxAgeMs: number;
  private readonly invitedMaxAgeMs: number;
  private readonly maxPerRead: number;
  private readonly concurrency: number;

  constructor(
    private readonly store: MembershipStore,
    private readonly directory: UserDirectory,
    private readonly logger: Logger,
    options: MemberProfilesOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.invitedMaxAgeMs = options.invitedMaxAgeMs ?? 0;
    this.maxPerRead = options.maxPerRead ?? 50;
    this.concurrency = options.concurrency ?? 8;
  }

  /** Refreshes the members whose copy is old; answers whether any was looked up (so the caller reads again). */
  async refreshStale(members: Member[], ctx: RequestContext): Promise<boolean> {
    const now = Date.now();
    const stale = members
      .filter((member) => {
        const maxAge = member.status === "invited" ? this.invitedMaxAgeMs : this.maxAgeMs;
        return !member.profileRefreshedAt || now - member.profileRefreshedAt.getTime() >= maxAge;
      })
      .slice(0, this.maxPerRead);
    if (stale.length === 0) return false;
    let next = 0;
    const worker = async () => {
      while (next < stale.length) {
        const member = stale[next++]!;
        try {
          const user = await this.directory.get(member.userId, ctx);
          if (user) await this.store.transaction((tx) => this.record(tx, user, ctx));
        } catch (error) {
          this.logger.warn(
            { err: error, user_id: member.userId, request_id: ctx.requestId },
            "member profile not refreshed; serving the copy",
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, stale.length) }, worker));
    return true;
  }

  /** Keeps what auth answered about a user and brings the status of their memberships in line with it. */
  async record(tx: Tx, user: AuthUser, ctx: RequestContext): Promise<void> {
    await this.store.saveProfile(tx, { userId: user.id, email: user.email, name: user.name, authStatus: user.status, refreshed: true });
    const changes = await this.store.setStatusOfUser(tx, user.id, user.status);
    await this.store.addEvents(
      tx,
      changes.map((change) => statusChanged({ ...change, userId: user.id, status: user.status }, { ...ctx, actorUserId: null })),
    );
  }
}
