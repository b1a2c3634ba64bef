import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ReceivedMail, SmtpSink } from "@docex/testkit";

interface CaughtMail extends ReceivedMail {
  receivedAt: Date;
}

/**
 * Where a local stack's mail goes when no SMTP_URL is given: an SMTP server on 127.0.0.1 that keeps every mail
 * (PIN, magic link, reset, invitation), says in the stack log what it carries, and shows them all on a page.
 */
export class LocalMailSink {
  private constructor(
    private readonly smtp: SmtpSink,
    private readonly page: Server,
    readonly pageUrl: string,
  ) {}

  static async start(pagePort: number, log: (line: string) => void): Promise<LocalMailSink> {
    const caught: CaughtMail[] = [];
    const smtp = await SmtpSink.start({
      onMail: (mail) => {
        caught.push({ ...mail, receivedAt: new Date() });
        log(`to ${mail.to.join(", ")}: "${mail.subject}"${whatItCarries(mail.text)}`);
      },
    });
    const page = createServer((req, res) => {
      if (req.url === "/mails.json") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(caught.map(({ raw: _raw, ...mail }) => mail)));
        return;
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(mailPage(caught));
    });
    // Another mail catcher may hold the usual port already; a stack that does not start over it helps nobody.
    const port = (await listenOn(page, pagePort)) ?? (await listenOn(page, 0));
    if (port === undefined) {
      await smtp.stop();
      throw new Error("the mail page found no port to listen on; set MAIL_PAGE_PORT to a free one");
    }
    return new LocalMailSink(smtp, page, `http://127.0.0.1:${port}`);
  }

  /** What the auth service is given as SMTP_URL. */
  get smtpUrl(): string {
    return this.smtp.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.page.close(() => resolve()));
    await this.smtp.stop();
  }
}

/** The port `server` listens on at 127.0.0.1, or undefined when `port` is taken. */
function listenOn(server: Server, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const taken = () => resolve(undefined);
    server.once("error", taken);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", taken);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The link or the code a mail is for, so that the log line alone is enough to go on. */
function whatItCarries(text: string): string {
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  if (link) return ` link: ${link}`;
  const code = /\b\d{6}\b/.exec(text)?.[0];
  return code ? ` code: ${code}` : "";
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`).replace(/(https?:\/\/[^\s&]+)/g, '<a href="$1">$1</a>');

function mailPage(mails: CaughtMail[]): string {
  const items = [...mails]
    .reverse()
    .map(
      (mail) =>
        `<article><h2>${escapeHtml(mail.subject)}</h2><p>to ${escapeHtml(mail.to.join(", "))}, ${mail.receivedAt.toISOString()}</p><pre>${escapeHtml(mail.text)}</pre></article>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docex local mail</title>
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}article{border-top:1px solid #ccc}pre{white-space:pre-wrap}</style>
</head><body><h1>Mail sent by the local docex stack</h1>
${items || "<p>No mail yet. Reload after asking for a PIN, a sign-in link or a password reset.</p>"}
</body></html>`;
}
