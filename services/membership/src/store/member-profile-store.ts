import type { Tx } from "@docex/kit/db";
import { TableStore } from "./table-store.js";

export interface MemberProfile {
  userId: string;
  email?: string | null;
  name?: string | null;
  authStatus?: string | null;
  /** True when the values come from auth itself (GetUser), false for what a token or an event said. */
  refreshed: boolean;
}

/** The copy of auth's email, name and status of each member. */
export class MemberProfileStore extends TableStore {
  /** Keeps what is given; a value left undefined keeps the stored one. */
  async saveProfile(tx: Tx | undefined, profile: MemberProfile): Promise<void> {
    const sql = `INSERT INTO member_profiles AS p (user_id, email, name, auth_status, refreshed_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END)
       ON CONFLICT (user_id) DO UPDATE SET
         email = COALESCE(EXCLUDED.email, p.email),
         name = CASE WHEN $5 THEN EXCLUDED.name ELSE COALESCE(EXCLUDED.name, p.name) END,
         auth_status = COALESCE(EXCLUDED.auth_status, p.auth_status),
         refreshed_at = COALESCE(EXCLUDED.refreshed_at, p.refreshed_at)`;
    const bind = [profile.userId, profile.email ?? null, profile.name ?? null, profile.authStatus ?? null, profile.refreshed];
    await this.sql.run(sql, bind, tx);
  }

  /** Forgets the copy of auth's email and name of the person (their account was erased). */
  async eraseProfile(tx: Tx, userId: string): Promise<void> {
    await this.execute("UPDATE member_profiles SET email = NULL, name = NULL WHERE user_id = $1", [userId], tx);
  }
}
