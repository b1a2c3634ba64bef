import type { MailTemplate } from "@docex/events";
import type { Tx } from "@docex/kit/db";

/** A mail that carries a one-time secret to its owner. */
export interface MailRequest {
  to: string;
  userId: string;
  template: MailTemplate;
  /** The user's ui_locale; null reads English. */
  locale: string | null;
  secret: { token: string } | { pin: string };
  expiresAt: Date;
  organizationName?: string;
  invitedBy?: string;
  /** An invitation to a user with a password: the link goes to accept-invitation, not change-password. */
  acceptOnly?: boolean;
}

/**
 * Where the domain hands mail over: `auth.mail_requested` goes into the outbox in `tx` (without the
 * secret), and the mail itself is sent once `tx` commits.
 */
export interface MailRequests {
  request(tx: Tx, mail: MailRequest, requestId: string | undefined): Promise<void>;
}
