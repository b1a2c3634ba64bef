import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The parts of a single-part text mail that the tests read: headers unfolded, body decoded. */
export function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const encoding = header("content-transfer-encoding").toLowerCase();
  const text =
    encoding === "quoted-printable"
      ? decodeQuotedPrintable(body)
      : encoding === "base64"
        ? Buffer.from(body, "base64").toString("utf8")
        : body;
  return { to, subject: header("subject"), text: text.replace(/\r\n/g, "\n"), raw };
}

/** A local SMTP server on 127.0.0.1 that keeps every mail, the way a user's mailbox would. */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];

  private constructor(private readonly server: SMTPServer) {}

  /** `port` 0 picks a free one; `onMail` hears every mail as it arrives. */
  static async start(options: { port?: number; onMail?: (mail: ReceivedMail) => void } = {}): Promise<SmtpSink> {
    let sink: SmtpSink | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const to = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase());
          const mail = parseMail(Buffer.concat(chunks).toString("utf8"), to);
          sink!.mails.push(mail);
          options.onMail?.(mail);
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", resolve);
    });
    sink = new SmtpSink(server);
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  mailsTo(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  /** The `count`-th mail to `address` (1-based), once it arrives. */
  async waitForMail(address: string, count = 1, timeoutMs = 5_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = this.mailsTo(address)[count - 1];
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`no mail #${count} to ${address} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The token a mail carries, as the user would copy it from the link. */
export function tokenIn(mail: ReceivedMail): string {
  const match = /token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no token in mail "${mail.subject}"`);
  return match[1];
}

export function pinIn(mail: ReceivedMail): string {
  const match = /(?:code is|kód je) (\d{6})/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no PIN in mail "${mail.subject}"`);
  return match[1];
}
