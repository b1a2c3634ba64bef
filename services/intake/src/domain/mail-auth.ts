import { Resolver } from "node:dns/promises";
import { authenticate, type DNSResolver } from "mailauth";
import type { MailAuthVerdicts } from "./document-port.js";

/** How the verdicts look records up: the system's DNS, or not at all. */
export type MailAuthMode = { kind: "dns"; timeoutMs: number } | { kind: "off" } | { kind: "resolver"; resolver: DNSResolver };

/** A resolver that finds nothing: SPF, DKIM and DMARC have no record to judge by, and each says `none`. */
const NOTHING: DNSResolver = async (name) => {
  const error = new Error(`queryTxt ENOTFOUND ${name}`) as Error & { code: string };
  error.code = "ENOTFOUND";
  throw error;
};

export function resolverOf(mode: MailAuthMode): DNSResolver {
  if (mode.kind === "off") return NOTHING;
  if (mode.kind === "resolver") return mode.resolver;
  const resolver = new Resolver({ timeout: mode.timeoutMs, tries: 1 });
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
}

/**
 * The SPF, DKIM and DMARC verdicts of a message (`pass`, `fail`, `softfail`, `neutral`, `none`, `temperror`, ...): DKIM
 * is the first passing signature's, else the first signature's, else `none`. They are recorded, not enforced, except
 * that a DMARC `fail` of the From header's domain keeps that header from granting a restricted inbox.
 */
export async function judgeMail(
  raw: Buffer,
  envelope: { ip: string; helo: string; sender: string; mta: string },
  resolver: DNSResolver,
): Promise<MailAuthVerdicts> {
  try {
    const result = await authenticate(raw, {
      ip: envelope.ip,
      helo: envelope.helo,
      sender: envelope.sender,
      mta: envelope.mta,
      resolver,
      disableArc: true,
      disableBimi: true,
    });
    const signatures = result.dkim?.results ?? [];
    const dkim = signatures.find((signature) => signature.status.result === "pass") ?? signatures[0];
    return {
      spf: result.spf ? result.spf.status.result : "none",
      dkim: dkim ? dkim.status.result : "none",
      dmarc: result.dmarc ? result.dmarc.status.result : "none",
    };
  } catch {
    return { spf: "temperror", dkim: "temperror", dmarc: "temperror" };
  }
}
