import type { CallContext } from "@docex/kit/grpc";

/** A queue's inbox as the document service resolved an address. */
export interface Inbox {
  queueId: string;
  organizationId: string;
  /** Addresses and `@domain`s; empty: anyone. */
  allowedSenders: string[];
}

/** What a document made from a mail records of it (Document.source, channel "email"). */
export interface MailSource {
  from: string;
  subject: string;
  message_id: string;
  /** ISO 8601. */
  received_at: string;
  auth: MailAuthVerdicts;
}

export interface MailAuthVerdicts {
  spf: string;
  dkim: string;
  dmarc: string;
}

export interface InboxAttachment {
  address: string;
  /** The same for a retried message: the document service makes no second document under it. */
  sourceKey: string;
  fileName: string;
  content: Buffer;
  source: MailSource;
}

export type ReceiveOutcome = { documentId: string; existing: boolean } | { refused: string; detail: string };

/** The document service as the intake needs it. */
export interface DocumentPort {
  /** Undefined for an address no queue has (or no longer has). */
  resolveInbox(address: string, ctx?: CallContext): Promise<Inbox | undefined>;
  receive(attachment: InboxAttachment, ctx?: CallContext): Promise<ReceiveOutcome>;
}
