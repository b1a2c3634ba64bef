import type { Sql, Tx } from "@docex/kit/db";
import type { Onboarding, OnboardingProfile, User, UserStatus } from "../domain/users.js";

const USER_COLUMNS = `
  id, email, name, status, password_hash AS "passwordHash", ui_locale AS "uiLocale",
  totp_secret AS "totpSecret", totp_pending_secret AS "totpPendingSecret",
  totp_enabled_at IS NOT NULL AS "totpEnabled", created_at AS "createdAt"`;

const ONBOARDING_COLUMNS = `
  user_id AS "userId", phone, ui_locale AS "uiLocale", company, register_id AS "registerId", vat_id AS "vatId", erp,
  invoice_count AS "invoiceCount", registered_at AS "registeredAt", completed_at AS "completedAt",
  organization_id AS "organizationId"`;

export class UserStore {
  constructor(private readonly sql: Sql) {}

  findById(id: string, tx?: Tx, lock = false): Promise<User | undefined> {
    return this.sql.one<User>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id], tx);
  }

  /** `email` must already be normalized (trimmed, lowercased). */
  findByEmail(email: string, tx?: Tx, lock = false): Promise<User | undefined> {
    return this.sql.one<User>(`SELECT ${USER_COLUMNS} FROM users WHERE email = $1${lock ? " FOR UPDATE" : ""}`, [email], tx);
  }

  /** Creates the user unless the email exists; answers the stored user either way and whether it was created. */
  async findOrCreate(
    tx: Tx,
    user: { id: string; email: string; status: UserStatus; passwordHash: string | null; uiLocale: string | null; now: Date },
  ): Promise<{ user: User; created: boolean }> {
    const inserted = await this.sql.one<User>(
      `INSERT INTO users (id, email, status, password_hash, password_changed_at, ui_locale, created_at, updated_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $4::text IS NULL THEN NULL ELSE $6::timestamptz END, $5, $6, $6)
       ON CONFLICT (email) DO NOTHING
       RETURNING ${USER_COLUMNS}`,
      [user.id, user.email, user.status, user.passwordHash, user.uiLocale, user.now],
      tx,
    );
    if (inserted) return { user: inserted, created: true };
    const existing = await this.findByEmail(user.email, tx, true);
    if (!existing) throw new Error("user vanished between insert and select");
    return { user: existing, created: false };
  }

  /** Sets the password and makes an invited user active. */
  async setPassword(tx: Tx, userId: string, passwordHash: string, now: Date): Promise<void> {
    await this.sql.rows(
      `UPDATE users SET password_hash = $2, password_changed_at = $3, updated_at = $3,
         status = CASE WHEN status = 'invited' THEN 'active' ELSE status END
       WHERE id = $1 RETURNING id`,
      [userId, passwordHash, now],
      tx,
    );
  }

  async rehashPassword(userId: string, oldHash: string, newHash: string): Promise<void> {
    await this.sql.rows("UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2 RETURNING id", [
      userId,
      oldHash,
      newHash,
    ]);
  }

  async setLocale(tx: Tx, userId: string, uiLocale: string, now: Date): Promise<void> {
    await this.sql.rows("UPDATE users SET ui_locale = $2, updated_at = $3 WHERE id = $1 RETURNING id", [userId, uiLocale, now], tx);
  }

  async setPendingTotp(userId: string, sealedSecret: string, now: Date): Promise<void> {
    await this.sql.rows("UPDATE users SET totp_pending_secret = $2, updated_at = $3 WHERE id = $1 RETURNING id", [
      userId,
      sealedSecret,
      now,
    ]);
  }

  /** Turns the pending secret on; false when it changed meanwhile (another setup started). */
  async enableTotp(tx: Tx, userId: string, sealedSecret: string, step: number, now: Date): Promise<boolean> {
    const rows = await this.sql.rows(
      `UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled_at = $4,
         totp_last_step = $3, updated_at = $4
       WHERE id = $1 AND totp_pending_secret = $2 AND totp_enabled_at IS NULL RETURNING id`,
      [userId, sealedSecret, step, now],
      tx,
    );
    return rows.length === 1;
  }

  async disableTotp(tx: Tx, userId: string, now: Date): Promise<void> {
    await this.sql.rows(
      `UPDATE users SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = $2
       WHERE id = $1 RETURNING id`,
      [userId, now],
      tx,
    );
  }

  /** Records the time step a TOTP code was accepted in; false when that step or a later one was used already. */
  async claimTotpStep(userId: string, step: number): Promise<boolean> {
    const rows = await this.sql.rows(
      `UPDATE users SET totp_last_step = $2
       WHERE id = $1 AND totp_enabled_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
      [userId, step],
    );
    return rows.length === 1;
  }

  async saveOnboarding(tx: Tx, userId: string, profile: OnboardingProfile, now: Date): Promise<void> {
    await this.sql.rows(
      `INSERT INTO onboardings (user_id, phone, ui_locale, company, register_id, vat_id, erp, invoice_count, registered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (user_id) DO UPDATE SET phone = $2, ui_locale = $3, company = $4, register_id = $5, vat_id = $6, erp = $7,
         invoice_count = $8, registered_at = $9
       WHERE onboardings.completed_at IS NULL
       RETURNING user_id`,
      [userId, profile.phone, profile.uiLocale, profile.company, profile.registerId, profile.vatId, profile.erp, profile.invoiceCount, now],
      tx,
    );
  }

  findOnboarding(userId: string, tx?: Tx): Promise<Onboarding | undefined> {
    return this.sql.one<Onboarding>(`SELECT ${ONBOARDING_COLUMNS} FROM onboardings WHERE user_id = $1`, [userId], tx);
  }

  /** Marks a pending onboarding complete; answers it only when this call completed it. */
  completeOnboarding(tx: Tx, userId: string, now: Date): Promise<Onboarding | undefined> {
    return this.sql.one<Onboarding>(
      `UPDATE onboardings SET completed_at = $2 WHERE user_id = $1 AND completed_at IS NULL RETURNING ${ONBOARDING_COLUMNS}`,
      [userId, now],
      tx,
    );
  }

  async setOnboardingOrganization(userId: string, organizationId: string): Promise<void> {
    await this.sql.rows("UPDATE onboardings SET organization_id = $2 WHERE user_id = $1 RETURNING user_id", [userId, organizationId]);
  }

  /**
   * Erases the person's name, email and what self-registration kept of them, and closes every way back in (password,
   * second factor, pending mailed tokens, trusted sources). False when the user does not exist or was erased before.
   */
  async erase(tx: Tx, userId: string, placeholderEmail: string, now: Date): Promise<boolean> {
    const rows = await this.sql.rows(
      `UPDATE users SET email = $2, name = '', status = 'deactivated', password_hash = NULL, password_changed_at = NULL,
         ui_locale = NULL, totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL,
         erased_at = $3, updated_at = $3
       WHERE id = $1 AND erased_at IS NULL RETURNING id`,
      [userId, placeholderEmail, now],
      tx,
    );
    if (rows.length === 0) return false;
    await this.sql.run(
      `UPDATE onboardings SET phone = '', company = NULL, register_id = NULL, vat_id = NULL, erp = NULL, invoice_count = NULL
       WHERE user_id = $1`,
      [userId],
      tx,
    );
    await this.sql.run("DELETE FROM one_time_secrets WHERE user_id = $1", [userId], tx);
    await this.sql.run("DELETE FROM trusted_sources WHERE user_id = $1", [userId], tx);
    return true;
  }

  /**
   * Forgets the published events that carried the person's email (mail requests, logins, onboarding), which the outbox
   * keeps for a while after publishing; unpublished ones still go out.
   */
  async forgetPublishedEventsWith(tx: Tx, email: string): Promise<void> {
    await this.sql.run(
      `DELETE FROM outbox WHERE published_at IS NOT NULL
         AND (payload -> 'data' ->> 'email' = $1 OR payload -> 'data' ->> 'recipient' = $1)`,
      [email],
      tx,
    );
  }
}
