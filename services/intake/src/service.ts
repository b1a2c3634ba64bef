import { readFileSync } from "node:fs";
import { ApiDescription } from "@docex/kit/http";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import type { DNSResolver } from "mailauth";
import { documentPort } from "./clients/document.js";
import type { IntakeConfig } from "./config.js";
import type { DocumentPort } from "./domain/document-port.js";
import { resolverOf } from "./domain/mail-auth.js";
import { InboxServer } from "./smtp/inbox-server.js";
import { IntakeStore } from "./store/intake-store.js";
import { migrations } from "./store/migrations.js";

export { configSchema, type IntakeConfig } from "./config.js";
export type { DocumentPort, Inbox, InboxAttachment, ReceiveOutcome } from "./domain/document-port.js";

export interface IntakeServiceOptions {
  logger?: Logger;
  /** Wraps the document service's client (tests: to stop the intake between two attachments of a mail). */
  documents?: (real: DocumentPort) => DocumentPort;
  /** The DNS lookups of the SPF, DKIM and DMARC verdicts (tests); by default as INTAKE_MAIL_AUTH says. */
  resolver?: DNSResolver;
}

export type RunningIntake = RunningService & { smtpPort: number; store: IntakeStore };

/** Builds the intake service from its configuration and starts it; the handle stops it gracefully. */
export async function startIntakeService(config: IntakeConfig, options: IntakeServiceOptions = {}): Promise<RunningIntake> {
  const infra = await connectInfrastructure("intake", config, { migrations, logger: options.logger });
  const client = documentPort(config.DOCUMENT_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    metrics: infra.metrics,
    resolveDeadlineMs: config.INTAKE_RESOLVE_DEADLINE_MS,
    receiveDeadlineMs: config.INTAKE_RECEIVE_DEADLINE_MS,
  });
  const tls =
    config.INTAKE_TLS_CERT_FILE && config.INTAKE_TLS_KEY_FILE
      ? { cert: readFileSync(config.INTAKE_TLS_CERT_FILE), key: readFileSync(config.INTAKE_TLS_KEY_FILE) }
      : undefined;
  if (Boolean(config.INTAKE_TLS_CERT_FILE) !== Boolean(config.INTAKE_TLS_KEY_FILE)) {
    throw new Error("INTAKE_TLS_CERT_FILE and INTAKE_TLS_KEY_FILE go together: set both for STARTTLS, or neither");
  }
  return infra.startOrClose(
    () => client.close(),
    async () => {
      const store = new IntakeStore(infra.sql);
      const smtp = new InboxServer(
        {
          documents: options.documents ? options.documents(client) : client,
          store,
          resolver:
            options.resolver ??
            resolverOf(config.INTAKE_MAIL_AUTH === "off" ? { kind: "off" } : { kind: "dns", timeoutMs: config.INTAKE_DNS_TIMEOUT_MS }),
          logger: infra.logger,
          registry: infra.metrics.registry,
        },
        {
          hostname: config.INTAKE_SMTP_HOSTNAME,
          maxMessageBytes: config.INTAKE_MAX_MESSAGE_BYTES,
          maxAttachments: config.INTAKE_MAX_ATTACHMENTS,
          messagesPerSenderPerMinute: config.INTAKE_MESSAGES_PER_SENDER_PER_MINUTE,
          maxZipEntries: config.INTAKE_ZIP_MAX_ENTRIES,
          maxZipUnpackedBytes: config.INTAKE_ZIP_MAX_UNPACKED_BYTES,
          maxFileBytes: config.INTAKE_MAX_FILE_BYTES,
          closeTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
          ...(tls ? { tls } : {}),
        },
      );
      infra.readiness.add("smtp", async () => {
        if (!smtp.isListening) throw new Error("the SMTP server is not listening");
      });
      // Every mail asks document for its inbox: the channel is open before the service says it is ready.
      infra.readiness.addStartUpWork("grpc_channels", client.warm());
      // No public endpoint: the (empty) OpenAPI part keeps the gateway's merged document complete.
      const app = infra.httpApp({ routes: () => undefined, api: new ApiDescription("intake") });
      const smtpPort = await smtp.listen(config.HOST, config.INTAKE_SMTP_PORT);
      try {
        const running = await infra.serve({
          app,
          grpc: infra.grpcServer(),
          onDrain: () => smtp.close(),
          onStop: async () => client.close(),
        });
        infra.logger.info({ smtp_port: smtpPort, mail_domain: config.INTAKE_MAIL_DOMAIN, starttls: Boolean(tls) }, "SMTP intake listening");
        return { ...running, smtpPort, store };
      } catch (error) {
        await smtp.close();
        throw error;
      }
    },
  );
}
