import { createEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx } from "@docex/kit/db";
import type { Clock } from "../domain/clock.js";
import type { MailRequest, MailRequests } from "../domain/mail-requests.js";
import type { MailDelivery } from "./mail-delivery.js";
import { mailLanguage, renderMail } from "./templates.js";

/** Paths of the web application that take a mailed token (AUTH_APP_URL in front). */
const LINK_PATHS = {
  magic_link: "/auth/magic-login",
  password_reset: "/auth/change-password",
  invitation: "/auth/change-password",
  onboarding_pin: undefined,
} as const;
const ACCEPT_INVITATION_PATH = "/auth/accept-invitation";

/** Renders mail in the user's language, records it as `auth.mail_requested`, and sends it after commit. */
export class Mailer implements MailRequests {
  constructor(
    private readonly events: OutboxEvents,
    private readonly delivery: MailDelivery,
    private readonly appUrl: string,
    private readonly clock: Clock,
  ) {}

  async request(tx: Tx, mail: MailRequest, requestId: string | undefined): Promise<void> {
    const event = createEvent("auth.mail_requested", {
      organization_id: null,
      data: { recipient: mail.to, template: mail.template, locale: mail.locale ?? "en", user_id: mail.userId },
      ...(requestId ? { request_id: requestId } : {}),
    });
    await this.events.add(tx, event);
    const path = mail.acceptOnly ? ACCEPT_INVITATION_PATH : LINK_PATHS[mail.template];
    const token = "token" in mail.secret ? mail.secret.token : undefined;
    const rendered = renderMail(mail.template, mailLanguage(mail.locale), {
      link: path && token ? `${this.appUrl.replace(/\/$/, "")}${path}?token=${encodeURIComponent(token)}` : undefined,
      token,
      pin: "pin" in mail.secret ? mail.secret.pin : undefined,
      expiresInMinutes: Math.round((mail.expiresAt.getTime() - this.clock.now().getTime()) / 60_000),
      organizationName: mail.organizationName,
      invitedBy: mail.invitedBy,
      acceptOnly: mail.acceptOnly,
    });
    tx.afterCommit(() => this.delivery.enqueue({ to: mail.to, ...rendered, template: mail.template, userId: mail.userId }));
  }
}
