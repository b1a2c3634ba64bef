import type { Logger } from "@docex/kit/logger";
import type { Member, MembershipStore, Tx } from "../store/membership-store.js";
import { statusChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";
import type { AuthUser, UserDirectory } from "./user-directory.js";

export interface MemberProfilesOptions {
  /** A member's copy of auth's data older than this is refreshed when the member list is read. */
  maxAgeMs?: number;
  /** Refreshes per read; the rest wait for the next read. */
  maxPerRead?: number;
  concurrency?: number;
}

/**
 * Emails, names and account status of members are auth's. Membership keeps a copy, written when it
 * learns them (acceptance, token, onboarding event) and refreshed over gRPC when the member list is read
 * and the copy is old. An accepted membership's status mirrors the account (deactivated while auth has it
 * deactivated, else active). A pending invitation (status invited) is never looked up: what auth knows of
 * the email's owner is not the inviter's to see until they accept. If auth does not answer, the copy is
 * served as it is.
 */
export class MemberProfiles {
  private readonly maxAgeMs: number;
  private readonly maxPerRead: number;
  private readonly concurrency: number;

  constructor(
    private readonly store: MembershipStore,
    private readonly directory: UserDirectory,
    private readonly logger: Logger,
    options: MemberProfilesOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.maxPerRead = options.maxPerRead ?? 50;
    this.concurrency = options.concurrency ?? 8;
  }

  /** Refreshes the members whose copy is old; answers whether any was looked up (so the caller reads again). */
  async refreshStale(members: Member[], ctx: RequestContext): Promise<boolean> {
    const now = Date.now();
    const stale = members
      .filter((member) => member.status !== "invited")
      .filter((member) => !member.profileRefreshedAt || now - member.profileRefreshedAt.getTime() >= this.maxAgeMs)
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
    await this.store.profiles.saveProfile(tx, {
      userId: user.id,
      email: user.email,
      name: user.name,
      authStatus: user.status,
      refreshed: true,
    });
    const status = user.status === "deactivated" ? "deactivated" : "active";
    const changes = await this.store.memberships.setStatusOfUser(tx, user.id, status);
    await this.store.events.add(
      tx,
      ...changes.map((change) => statusChanged({ ...change, userId: user.id, status }, { ...ctx, actorUserId: null })),
    );
  }
}
