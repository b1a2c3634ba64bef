import type { Logger } from "@docex/kit/logger";
import type { Transporter } from "nodemailer";
import nodemailer from "nodemailer";
import type { Counter } from "prom-client";
import { BackgroundWork } from "../domain/background-work.js";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** For logs and metrics; the content is never logged. */
  template: string;
  userId: string;
}

const ATTEMPTS = 3;

/**
 * Sends mail over SMTP in the background, so that an answer never waits for (or reveals, by its
 * timing) a mail server. Mail is not persisted: it carries a secret, and a user whose mail was lost
 * asks again. Without SMTP_URL mail is only recorded as an event.
 */
export class MailDelivery {
  private readonly transport: Transporter | undefined;
  private readonly sending: BackgroundWork;

  constructor(
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly logger: Logger,
    private readonly sent: Counter<"template" | "outcome">,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined;
    this.sending = new BackgroundWork(logger);
  }

  enqueue(mail: OutgoingMail): void {
    this.sending.run(`mail ${mail.template}`, undefined, () => this.send(mail));
  }

  private async send(mail: OutgoingMail): Promise<void> {
    const context = { template: mail.template, user_id: mail.userId };
    if (!this.transport) {
      this.logger.info(context, "mail not sent: SMTP_URL is not set");
      this.sent.inc({ template: mail.template, outcome: "skipped" });
      return;
    }
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      try {
        await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
        this.sent.inc({ template: mail.template, outcome: "sent" });
        return;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (attempt === ATTEMPTS) {
          this.logger.error({ ...context, reason }, "mail could not be sent");
          this.sent.inc({ template: mail.template, outcome: "failed" });
          return;
        }
        this.logger.warn({ ...context, reason, attempt }, "mail not sent yet; retrying");
        await new Promise((resolve) => setTimeout(resolve, attempt * 1_000));
      }
    }
  }

  /** Waits for mail in flight (at most `timeoutMs`), then closes the connection. */
  async close(timeoutMs: number): Promise<void> {
    await this.sending.drain(timeoutMs);
    this.transport?.close();
  }
}
