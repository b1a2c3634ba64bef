import { createHash, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import { DomainError, NotFoundError } from "@docex/kit/errors";
import type { Logger } from "@docex/kit/logger";
import type { DNSResolver } from "mailauth";
import { Counter, type Registry } from "prom-client";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import type { DocumentPort, Inbox, MailSource } from "../domain/document-port.js";
import { judgeMail } from "../domain/mail-auth.js";
import { type ReadLimits, readMail, type SkippedFile } from "../domain/mail-reading.js";
import { senderAllowed } from "../domain/sender-policy.js";
import type { IntakeStore } from "../store/intake-store.js";

export interface InboxServerSettings extends ReadLimits {
  hostname: string;
  maxMessageBytes: number;
  maxAttachments: number;
  messagesPerSenderPerMinute: number;
  /** STARTTLS is offered only with both. */
  tls?: { cert: Buffer; key: Buffer };
  /** How long connections may finish at shutdown before they are cut. */
  closeTimeoutMs: number;
}

export interface InboxServerDependencies {
  documents: DocumentPort;
  store: IntakeStore;
  resolver: DNSResolver;
  logger: Logger;
  registry: Registry;
}

/** An SMTP refusal: the reply code and enhanced status that say why. */
class SmtpReply extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the intake knows of one SMTP session beyond smtp-server's envelope. */
interface SessionState {
  inboxes: Map<string, Inbox>;
}

/**
 * The SMTP server of the queues' inboxes. Refusals come as early as the envelope allows: an unknown recipient at RCPT
 * (550), a sender over its per-minute limit at MAIL (451), a declared SIZE over the limit at MAIL (552); the rest at the
 * end of DATA: too large (552), no allowed sender (550), too many attachments (552). A message is answered 250 only
 * once the document service holds every document it makes; any failure before that is a 4xx or 5xx, and a retried
 * message finds the documents made by an earlier try (their keys derive from its Message-ID).
 */
export class InboxServer {
  private readonly server: SMTPServer;
  private readonly sessions = new Map<string, SessionState>();
  private readonly messages: Counter<"outcome">;
  private readonly documentsKept: Counter<"outcome">;
  private listening = false;

  constructor(
    private readonly deps: InboxServerDependencies,
    private readonly settings: InboxServerSettings,
  ) {
    this.messages = new Counter({
      name: "intake_messages_total",
      help: "Messages the intake answered, by outcome (documents, no_attachment, or the refusal)",
      labelNames: ["outcome"],
      registers: [deps.registry],
    });
    this.documentsKept = new Counter({
      name: "intake_documents_total",
      help: "Attachments handed to the document service, by outcome (created, existing, or why it was refused)",
      labelNames: ["outcome"],
      registers: [deps.registry],
    });
    const disabled = ["AUTH", "XCLIENT", "XFORWARD"];
    if (!settings.tls) disabled.push("STARTTLS");
    this.server = new SMTPServer({
      name: settings.hostname,
      banner: "docex intake",
      size: settings.maxMessageBytes,
      authOptional: true,
      disabledCommands: disabled,
      ...(settings.tls ? { key: settings.tls.key, cert: settings.tls.cert } : {}),
      logger: false,
      closeTimeout: settings.closeTimeoutMs,
      onConnect: (session, callback) => {
        this.sessions.set(session.id, { inboxes: new Map() });
        callback();
      },
      onClose: (session) => {
        this.sessions.delete(session.id);
      },
      onMailFrom: (address, session, callback) => {
        this.stateOf(session).inboxes.clear();
        this.countSender(address.address)
          .then(() => callback())
          .catch((error: unknown) => callback(this.asReply(error, "mail_from")));
      },
      onRcptTo: (address, session, callback) => {
        this.resolveRecipient(address.address, session)
          .then(() => callback())
          .catch((error: unknown) => callback(this.asReply(error, "rcpt_to")));
      },
      onData: (stream, session, callback) => {
        this.receive(stream, session)
          .then((reply) => callback(null, reply))
          .catch((error: unknown) => callback(this.asReply(error, "data")));
      },
    });
    this.server.on("error", (error) => deps.logger.warn({ err: error }, "SMTP connection failed"));
  }

  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.server.off("error", reject);
        resolve();
      });
    });
    this.listening = true;
    return (this.server.server.address() as AddressInfo).port;
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Stops taking connections; sessions under way may finish their message within closeTimeoutMs. */
  close(): Promise<void> {
    this.listening = false;
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private stateOf(session: SMTPServerSession): SessionState {
    let state = this.sessions.get(session.id);
    if (!state) {
      state = { inboxes: new Map() };
      this.sessions.set(session.id, state);
    }
    return state;
  }

  private async countSender(sender: string): Promise<void> {
    const key = sender.trim().toLowerCase() || "<>";
    const count = await this.deps.store.countMessage(key);
    if (count > this.settings.messagesPerSenderPerMinute) {
      this.messages.inc({ outcome: "sender_rate_limited" });
      throw new SmtpReply(
        451,
        `4.7.1 Too many messages from ${key}: at most ${this.settings.messagesPerSenderPerMinute} a minute; try again later`,
      );
    }
  }

  private async resolveRecipient(recipient: string, session: SMTPServerSession): Promise<void> {
    const address = recipient.trim().toLowerCase();
    const inbox = await this.deps.documents.resolveInbox(address, { requestId: session.id });
    if (!inbox) {
      this.messages.inc({ outcome: "unknown_recipient" });
      throw new SmtpReply(550, `5.1.1 ${address}: no such inbox`);
    }
    this.stateOf(session).inboxes.set(address, inbox);
  }

  private async receive(stream: Readable, session: SMTPServerSession): Promise<string> {
    const raw = await readAll(stream, this.settings.maxMessageBytes);
    if ((stream as Readable & { sizeExceeded?: boolean }).sizeExceeded || raw === undefined) {
      this.messages.inc({ outcome: "too_large" });
      throw new SmtpReply(552, `5.3.4 Message too large: at most ${this.settings.maxMessageBytes} bytes`);
    }
    const envelopeSender = session.envelope.mailFrom ? session.envelope.mailFrom.address.toLowerCase() : "";
    const mail = await readMail(raw, this.settings);
    const auth = await judgeMail(
      raw,
      {
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs || session.remoteAddress,
        sender: envelopeSender,
        mta: this.settings.hostname,
      },
      this.deps.resolver,
    );
    const inboxes = [...this.stateOf(session).inboxes.entries()].filter(([, inbox]) => {
      // The envelope's sender, or the From header's when DMARC does not say it is forged.
      return (
        senderAllowed(envelopeSender, inbox.allowedSenders) ||
        (auth.dmarc !== "fail" && mail.from !== "" && senderAllowed(mail.from, inbox.allowedSenders))
      );
    });
    if (inboxes.length === 0) {
      this.messages.inc({ outcome: "sender_refused" });
      this.deps.logger.info(
        { sender: envelopeSender, from: mail.from, message_id: mail.messageId },
        "mail refused: sender not allowed by the inbox",
      );
      throw new SmtpReply(550, `5.7.1 Sender ${mail.from || envelopeSender || "<>"} is not allowed to send to this inbox`);
    }
    if (mail.files.length > this.settings.maxAttachments) {
      this.messages.inc({ outcome: "too_many_attachments" });
      throw new SmtpReply(552, `5.3.4 Too many attachments: ${mail.files.length}, at most ${this.settings.maxAttachments}`);
    }
    const source: MailSource = {
      from: mail.from || envelopeSender,
      subject: mail.subject,
      message_id: mail.messageId,
      received_at: new Date().toISOString(),
      auth,
    };
    const keyBase = createHash("sha256").update(mail.identity).digest("hex");
    let kept = 0;
    for (const [address, inbox] of inboxes) {
      const skipped: SkippedFile[] = [...mail.skipped];
      let documents = 0;
      for (const [index, file] of mail.files.entries()) {
        const outcome = await this.deps.documents.receive(
          { address, sourceKey: `email:${keyBase}:${index}`, fileName: file.fileName, content: file.content, source },
          { requestId: session.id },
        );
        if ("refused" in outcome) {
          this.documentsKept.inc({ outcome: outcome.refused });
          if (outcome.refused === "storage_quota_exceeded")
            throw new SmtpReply(552, "5.2.2 Mailbox full: the organization's storage quota is used up");
          if (outcome.refused === "upload_quota_exceeded")
            throw new SmtpReply(451, "4.2.2 The organization's upload quota is used up for now; try again later");
          skipped.push({ file_name: file.fileName, reason: outcome.refused });
          continue;
        }
        this.documentsKept.inc({ outcome: outcome.existing ? "existing" : "created" });
        documents += 1;
      }
      kept += documents;
      const outcome = documents > 0 ? "documents" : "no_attachment";
      this.messages.inc({ outcome });
      await this.deps.store.recordMessage({
        queueId: inbox.queueId,
        messageId: mail.messageId,
        sender: source.from,
        outcome,
        documents,
        skipped,
      });
      const fields = { queue_id: inbox.queueId, sender: source.from, message_id: mail.messageId, documents, skipped, auth };
      if (documents === 0) this.deps.logger.info(fields, "mail without an accepted attachment: taken, no document made, no bounce");
      else this.deps.logger.info(fields, "mail taken");
    }
    return `2.0.0 Taken: ${kept} document(s)`;
  }

  /** A failure as the client should hear it: our refusals as they are, the document service's as a temporary failure. */
  private asReply(error: unknown, stage: string): Error {
    if (error instanceof SmtpReply) return error;
    if (error instanceof NotFoundError) return new SmtpReply(550, "5.1.1 No such inbox (its address may have been replaced)");
    const reference = randomUUID();
    this.messages.inc({ outcome: "temporary_failure" });
    this.deps.logger.warn(
      { err: error, stage, reference, ...(error instanceof DomainError ? { code: error.code } : {}) },
      "mail not taken: temporary failure",
    );
    return new SmtpReply(451, `4.3.0 Temporary failure (${reference}); nothing was kept, try again later`);
  }
}

/** The message's bytes, or undefined once more than `max` arrived (the rest is read and dropped). */
function readAll(stream: Readable, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    stream.once("error", reject);
    stream.once("end", () => resolve(size > max ? undefined : Buffer.concat(chunks)));
  });
}
