import { randomUUID } from "node:crypto";
import { createEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import type { Logger } from "@docex/kit/logger";
import type { UserStore } from "../store/user-store.js";
import { authErrors } from "./auth-errors.js";
import type { BackgroundWork } from "./background-work.js";
import type { Clock } from "./clock.js";
import type { MailRequests } from "./mail-requests.js";
import type { MembershipOrganizations } from "./membership-organizations.js";
import type { OneTimeSecrets } from "./one-time-secrets.js";
import type { RequestContext } from "./request-context.js";
import { Throttle } from "./throttle.js";
import { normalizeEmail, type Onboarding, type OnboardingProfile, type User } from "./users.js";

export interface Registration extends OnboardingProfile {
  email: string;
}

/**
 * Self-registration: register → PIN by mail → verify-onboarding-pin → invitation token →
 * change-password sets the first password, which completes the onboarding. Completion publishes
 * `auth.user_onboarded` in the same transaction, then asks membership for the organization.
 */
export class SelfOnboarding {
  constructor(
    private readonly sql: UnitOfWork,
    private readonly users: UserStore,
    private readonly secrets: OneTimeSecrets,
    private readonly mail: MailRequests,
    private readonly events: OutboxEvents,
    private readonly throttle: Throttle,
    private readonly membership: MembershipOrganizations,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly background: BackgroundWork,
  ) {}

  /**
   * Mails a PIN to a new address (or one only invited so far). An address with a password already
   * gets nothing; the answer is the same and comes before that is looked up, so neither its content
   * nor its timing tells whether the email is registered.
   */
  async register(registration: Registration, ctx: RequestContext): Promise<void> {
    await this.throttle.admitMailRequest(ctx.clientAddress);
    this.background.run("register", ctx.requestId, () => this.mailPin(registration, ctx));
  }

  private async mailPin(registration: Registration, ctx: RequestContext): Promise<void> {
    const email = normalizeEmail(registration.email);
    const existing = await this.users.findByEmail(email);
    if (existing && existing.status !== "invited") return;
    if (!(await this.throttle.admitMailTo("onboarding_pin", email))) return;
    await this.sql.transaction(async (tx) => {
      const now = this.clock.now();
      const { user } = await this.users.findOrCreate(tx, {
        id: randomUUID(),
        email,
        status: "invited",
        passwordHash: null,
        uiLocale: registration.uiLocale,
        now,
      });
      if (user.status !== "invited") return;
      await this.users.saveOnboarding(tx, user.id, registration, now);
      await this.users.setLocale(tx, user.id, registration.uiLocale, now);
      const { pin, expiresAt } = await this.secrets.issuePin(tx, user.id);
      await this.mail.request(
        tx,
        { to: email, userId: user.id, template: "onboarding_pin", locale: registration.uiLocale, secret: { pin }, expiresAt },
        ctx.requestId,
      );
    });
  }

  /** Exchanges a right PIN for an invitation token; every failure looks the same. */
  async verifyPin(emailGiven: string, pin: string, ctx: RequestContext): Promise<{ invitationToken: string; expiresAt: Date }> {
    const email = normalizeEmail(emailGiven);
    // Counted before the PIN is checked (each PIN also has its own five tries, under a row lock).
    const reserved = await this.throttle.reserve(Throttle.loginKeys(email, ctx.clientAddress));
    const user = await this.users.findByEmail(email);
    const issued =
      user?.status === "invited"
        ? await this.sql.transaction(async (tx) => {
            if ((await this.secrets.checkPin(tx, user.id, pin)) !== "accepted") return undefined;
            return this.secrets.issueToken(tx, user.id, "invitation");
          })
        : undefined;
    if (!issued) throw authErrors.invalidPin();
    await reserved.succeeded();
    return { invitationToken: issued.token, expiresAt: issued.expiresAt };
  }

  /**
   * Completes the user's pending self-registration inside `tx`, where their first password is being
   * set, and publishes `auth.user_onboarded` with it. Nothing happens when none is pending.
   */
  async completeIn(tx: Tx, user: Pick<User, "id" | "email">, requestId: string | undefined): Promise<Onboarding | undefined> {
    const onboarding = await this.users.completeOnboarding(tx, user.id, this.clock.now());
    if (!onboarding) return undefined;
    const event = createEvent("auth.user_onboarded", {
      organization_id: null,
      data: {
        user_id: user.id,
        email: user.email,
        company: onboarding.company,
        vat_id: onboarding.vatId,
        register_id: onboarding.registerId,
        erp: onboarding.erp,
        invoice_count: onboarding.invoiceCount,
        ui_locale: onboarding.uiLocale,
      },
      ...(requestId ? { request_id: requestId } : {}),
    });
    await this.events.add(tx, event);
    return onboarding;
  }

  /**
   * Asks membership for the organization of a completed onboarding that has none yet. When membership
   * does not answer, onboarding stays complete: its consumer of `auth.user_onboarded` creates the
   * organization with the same idempotency key, so there is one either way.
   */
  async ensureOrganization(user: Pick<User, "id" | "email">, requestId: string | undefined): Promise<string | undefined> {
    const onboarding = await this.users.findOnboarding(user.id);
    if (!onboarding?.completedAt) return undefined;
    if (onboarding.organizationId) return onboarding.organizationId;
    try {
      const { organizationId } = await this.membership.createForOnboarding(
        { ownerUserId: user.id, name: organizationName(onboarding, user.email) },
        requestId ? { requestId } : {},
      );
      await this.users.setOnboardingOrganization(user.id, organizationId);
      return organizationId;
    } catch (error) {
      this.logger.warn(
        { user_id: user.id, request_id: requestId, reason: error instanceof Error ? error.message : String(error) },
        "membership did not create the onboarding organization now; its auth.user_onboarded consumer will",
      );
      return undefined;
    }
  }
}

/** The organization is named after the company; without one, after the owner's email. */
export function organizationName(onboarding: Pick<Onboarding, "company">, email: string): string {
  return onboarding.company?.trim() || email;
}
