import { port, serviceConfigSchema } from "@docex/kit/config";
import { z } from "zod";

const count = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);
const MiB = 1024 * 1024;

export const configSchema = serviceConfigSchema("intake").extend({
  /** Where the SMTP server listens (on HOST); 25 in deploy/k8s. */
  INTAKE_SMTP_PORT: port.default(2526),
  /** The domain of queues' inbox addresses; mail to any other domain is refused (550). The document service's is the same. */
  INTAKE_MAIL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, "must be a lowercase domain name")
    .default("docex.test"),
  /** The name the server greets with (and the authserv-id of its authentication verdicts). */
  INTAKE_SMTP_HOSTNAME: z.string().min(1).default("docex-intake"),
  /** The largest message taken (announced as SIZE); larger is 552. */
  INTAKE_MAX_MESSAGE_BYTES: count(30 * MiB, 1024 * MiB),
  /** Accepted attachments (files inside ZIPs counted) one message may carry; more is 552. */
  INTAKE_MAX_ATTACHMENTS: count(20, 1_000),
  /** Messages one sender (envelope address) may start per minute, across replicas; more is 451 (try later). */
  INTAKE_MESSAGES_PER_SENDER_PER_MINUTE: count(30, 100_000),
  /** Entries of a ZIP attachment looked at; a ZIP with more is skipped (a ZIP bomb). */
  INTAKE_ZIP_MAX_ENTRIES: count(100, 10_000),
  /** Bytes unpacked from one ZIP attachment in all; a ZIP bomb stops here, the attachment is skipped. */
  INTAKE_ZIP_MAX_UNPACKED_BYTES: count(100 * MiB, 1024 * MiB),
  /** The largest file handed to the document service (its DOCUMENT_MAX_FILE_BYTES); larger attachments are skipped. */
  INTAKE_MAX_FILE_BYTES: count(25 * MiB, 1024 * MiB),
  /** STARTTLS: a PEM certificate (chain) and its key; both unset: plain SMTP only. */
  INTAKE_TLS_CERT_FILE: z.string().min(1).optional(),
  /** The PEM key of INTAKE_TLS_CERT_FILE. */
  INTAKE_TLS_KEY_FILE: z.string().min(1).optional(),
  /**
   * SPF, DKIM and DMARC verdicts: `dns` looks their records up (the system's resolver); `off` looks nothing up and every
   * verdict is `none` (a machine without DNS, tests).
   */
  INTAKE_MAIL_AUTH: z.enum(["dns", "off"]).default("dns"),
  /** Deadline of one DNS lookup of the verdicts; a lookup past it counts as a temporary error (`temperror`). */
  INTAKE_DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3_000),
  /** Deadline of ResolveInbox. */
  INTAKE_RESOLVE_DEADLINE_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** Deadline of one ReceiveEmailDocument (an attachment of up to INTAKE_MAX_FILE_BYTES). */
  INTAKE_RECEIVE_DEADLINE_MS: z.coerce.number().int().min(100).max(300_000).default(60_000),
});

export type IntakeConfig = z.infer<typeof configSchema>;
