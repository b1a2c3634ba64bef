import { tmpdir } from "node:os";
import { forgetChangedQueues } from "@docex/domain/queue-changes";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { documentService } from "@docex/protos";
import { automationClient } from "./clients/automation.js";
import { MembershipAccessClient } from "./clients/membership.js";
import { validationTargetsClient } from "./clients/validation-targets.js";
import { webhookValidator } from "./clients/webhook.js";
import type { DocumentConfig } from "./config.js";
import { AccessControl } from "./domain/access.js";
import { AutomationSwitchSeed } from "./domain/automation-switch-seed.js";
import { DocumentChanges } from "./domain/document-changes.js";
import { DocumentLifetime } from "./domain/document-lifetime.js";
import { DocumentWriter } from "./domain/document-writer.js";
import { Documents } from "./domain/documents.js";
import { DuplicateCheck } from "./domain/duplicates.js";
import { EmailDocuments } from "./domain/email-documents.js";
import { EntityResolver } from "./domain/entity-resolution.js";
import { Hierarchy } from "./domain/hierarchy.js";
import { INITIAL_VALIDATION_DEFAULTS, InitialValidationRunner, type InitialValidationSettings } from "./domain/initial-validation.js";
import { Quotas } from "./domain/quotas.js";
import { type DocumentValidator, EditValidation, validatorOf } from "./domain/validation.js";
import { ValidationLinks } from "./domain/validation-links.js";
import { ValidationWebhooks } from "./domain/validation-webhooks.js";
import { automationSwitchProjection } from "./events/automation-switch-projection.js";
import { organizationProjection } from "./events/organization-projection.js";
import { validatorProjection } from "./events/validator-projection.js";
import { ExportStore } from "./export/export-store.js";
import { Exports } from "./export/exports.js";
import { onReadyExports } from "./export/on-ready-consumer.js";
import { KeptFiles } from "./files/kept-files.js";
import { PostgresFileStore } from "./files/postgres-file-store.js";
import { S3FileStore } from "./files/s3-file-store.js";
import { UploadSlots } from "./files/upload-slots.js";
import { documentCallers, documentHandlers } from "./grpc/document-handlers.js";
import { documentRoutes } from "./http/routes.js";
import { PaymentBatches } from "./payments/payment-batches.js";
import { PaymentStore } from "./payments/payment-store.js";
import { AutomationSwitchStore } from "./store/automation-switch-store.js";
import { DocumentStore } from "./store/document-store.js";
import { HierarchyStore } from "./store/hierarchy-store.js";
import { LifetimeStore } from "./store/lifetime-store.js";
import { migrations } from "./store/migrations.js";
import { QuotaStore } from "./store/quota-store.js";
import { ValidationJobStore } from "./store/validation-job-store.js";
import { ValidationLinkStore } from "./store/validation-link-store.js";
import { ValidatorStore } from "./store/validator-store.js";

export { configSchema, type DocumentConfig } from "./config.js";
export type { DocumentValidator, SavedEdit, ValidationChange } from "./domain/validation.js";

export interface DocumentServiceOptions {
  logger?: Logger;
  /** document_validation after a user's edit; by default the webhook service's Validate within DOCUMENT_VALIDATION_TIMEOUT_MS. */
  validator?: DocumentValidator;
  /**
   * initial_document_validation after extraction: the runner's retry delays, poll interval and concurrency
   * (defaults: INITIAL_VALIDATION_DEFAULTS). `false` leaves scheduled jobs unrun (tests of other things).
   */
  initialValidation?: false | Partial<Omit<InitialValidationSettings, "budgetMs">>;
}

/** RegisterValidationTarget and DescribeValidationTargets: a link's save or list waits at most this long for them. */
const TARGETS_DEADLINE_MS = 5_000;

/** Builds the document service from its configuration and starts it; the handle stops it gracefully. */
export async function startDocumentService(config: DocumentConfig, options: DocumentServiceOptions = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("document", config, { migrations, logger: options.logger });
  const membership = new MembershipAccessClient(config.MEMBERSHIP_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.DOCUMENT_MEMBERSHIP_DEADLINE_MS,
    permissionCacheMs: config.DOCUMENT_PERMISSION_CACHE_MS,
    userSchemaCacheMs: config.DOCUMENT_USER_SCHEMA_CACHE_MS,
    bus: infra.bus,
    logger: infra.logger,
    metrics: infra.metrics,
  });
  const automation = automationClient(config.AUTOMATION_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    metrics: infra.metrics,
    deadlineMs: config.DOCUMENT_AUTOMATION_DEADLINE_MS,
  });
  const sql = infra.sql;
  const switches = new AutomationSwitchStore(sql);
  const seed = new AutomationSwitchSeed(switches, automation, infra.logger);
  // Ready once the queues that predate the projection show automation's switches, not the defaults (see the README).
  infra.readiness.add("automation_switches", async () => {
    if (!seed.done) throw new Error("asking automation for the switches of queues that predate the projection");
  });
  const validators = new ValidatorStore(sql);
  // Queues, and with them which validators apply to their documents, are cached here (see DECISIONS.md).
  const hierarchyStore = new HierarchyStore(sql);
  const webhook = webhookValidator(config.WEBHOOK_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    metrics: infra.metrics,
    logger: infra.logger,
    validators: {
      async of(type, scope) {
        const queue = await hierarchyStore.findQueue({ id: scope.queueId });
        return queue ? validatorOf(await hierarchyStore.validatorsOf(queue), type, scope) : undefined;
      },
    },
  });
  // Saving and listing a queue's links registers and describes their receivers there (not on an edit's path).
  const targets = validationTargetsClient(config.WEBHOOK_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    metrics: infra.metrics,
    deadlineMs: TARGETS_DEADLINE_MS,
  });
  // A user's edit (PATCH …/annotations) asks membership for the permission and the webhook service's Validate within
  // DOCUMENT_VALIDATION_TIMEOUT_MS: their channels are open and warm before the service is ready (see DECISIONS.md).
  infra.readiness.addStartUpWork("grpc_channels", Promise.all([membership.warm(), webhook.warm()]));
  const closeOnFailure = async () => {
    await membership.close();
    automation.close();
    webhook.close();
    targets.close();
  };
  return infra.startOrClose(closeOnFailure, async () => {
    const queueEviction = forgetChangedQueues(infra.bus, (queueId) => hierarchyStore.forgetQueue(queueId));
    const documentStore = new DocumentStore(sql);
    const events = infra.events;
    const access = new AccessControl(membership);
    const writer = new DocumentWriter(documentStore, events);
    const changes = new DocumentChanges(sql, documentStore, hierarchyStore, writer);
    const fileStore = config.FILE_STORE_URL ? new S3FileStore(config.FILE_STORE_URL) : new PostgresFileStore(sql);
    const files = new KeptFiles(fileStore, documentStore, infra.logger, {
      retentionMs: config.DOCUMENT_FILE_RETENTION_DAYS * 86_400_000,
      sweepIntervalMs: config.DOCUMENT_FILE_SWEEP_INTERVAL_MS,
      batchSize: 100,
    });
    const lifetime = new DocumentLifetime(sql, new LifetimeStore(sql), events, files, infra.logger, {
      sweepIntervalMs: config.DOCUMENT_LIFETIME_SWEEP_INTERVAL_MS,
      maxBatchesPerQueue: 20,
    });
    const hierarchy = new Hierarchy({
      sql,
      store: hierarchyStore,
      events,
      access,
      membership,
      automation: switches,
      files,
      inboxDomain: config.INTAKE_MAIL_DOMAIN,
    });
    const jobs = new ValidationJobStore(sql);
    const runner =
      options.initialValidation === false
        ? undefined
        : new InitialValidationRunner(
            { jobs, documents: documentStore, hierarchy: hierarchyStore, changes, external: webhook, logger: infra.logger },
            { ...INITIAL_VALIDATION_DEFAULTS, ...options.initialValidation, budgetMs: config.INITIAL_VALIDATION_TIMEOUT_MS },
          );
    const quotas = new Quotas(
      { store: new QuotaStore(sql), hierarchy: hierarchyStore, membership },
      {
        defaults: {
          storedBytes: config.DOCUMENT_QUOTA_STORED_BYTES,
          uploadsPerMinute: config.DOCUMENT_QUOTA_UPLOADS_PER_MINUTE,
          documentsPerMonth: config.DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH,
        },
        ceilings: {
          storedBytes: config.DOCUMENT_QUOTA_STORED_BYTES_MAX,
          uploadsPerMinute: config.DOCUMENT_QUOTA_UPLOADS_PER_MINUTE_MAX,
          documentsPerMonth: config.DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH_MAX,
        },
      },
      infra.metrics.registry,
    );
    const documents = new Documents({
      sql,
      documents: documentStore,
      hierarchy: hierarchyStore,
      writer,
      changes,
      access,
      membership,
      validator: options.validator ?? new EditValidation(webhook, config.DOCUMENT_VALIDATION_TIMEOUT_MS),
      initialValidation: { jobs, wake: () => runner?.wake() },
      duplicates: new DuplicateCheck(documentStore, access),
      events,
      files: fileStore,
      quotas,
      approvalRoutes: automation,
      switches,
    });

    const exports = new Exports({
      sql,
      store: new ExportStore(sql),
      documents: documentStore,
      hierarchy: hierarchyStore,
      writer,
      access,
      views: documents,
      events,
    });

    const slots = new UploadSlots(
      {
        perProcess: config.DOCUMENT_MAX_CONCURRENT_UPLOADS,
        perOrganization: config.DOCUMENT_MAX_CONCURRENT_UPLOADS_PER_ORGANIZATION,
        retryAfterSeconds: config.DOCUMENT_UPLOAD_RETRY_AFTER_SECONDS,
      },
      infra.metrics.registry,
    );
    const payments = new PaymentBatches({ sql, store: new PaymentStore(sql), documents: documentStore, hierarchy: hierarchyStore, access });
    const linkStore = new ValidationLinkStore(sql);
    const validationWebhooks = new ValidationWebhooks({
      sql,
      store: validators,
      links: linkStore,
      hierarchy: hierarchyStore,
      documents: documentStore,
      webhooks: targets,
      logger: infra.logger,
    });
    const validationLinks = new ValidationLinks({
      sql,
      links: linkStore,
      hierarchy: hierarchyStore,
      access,
      targets,
      validators,
      replaced: validationWebhooks,
      events,
    });
    const http = documentRoutes({ hierarchy, documents, files, slots, quotas, exports, payments, validationLinks }, infra.verifier, {
      maxFileBytes: config.DOCUMENT_MAX_FILE_BYTES,
      spoolDir: config.DOCUMENT_UPLOAD_SPOOL_DIR || tmpdir(),
    });
    const app = infra.httpApp({
      routes: http.routes,
      api: http.api,
      streamedBodies: [{ method: "POST", path: /^\/api\/v2\/queues\/[^/]+\/documents\/?$/ }],
    });
    // ReceiveEmailDocument carries a mail's attachment (up to DOCUMENT_MAX_FILE_BYTES) in one message.
    const grpc = infra.grpcServer({ maxReceiveMessageBytes: config.DOCUMENT_MAX_FILE_BYTES + 64 * 1024 });
    grpc.addService(
      documentService.definition,
      documentService.serviceName,
      documentHandlers({
        resolver: new EntityResolver(hierarchyStore, documentStore, membership),
        hierarchy: hierarchyStore,
        documents: documentStore,
        changes,
        extractions: documents,
        files,
        validationWebhooks,
        links: linkStore,
        email: new EmailDocuments({
          sql,
          hierarchy: hierarchyStore,
          documents: documentStore,
          files: fileStore,
          quotas,
          events,
          inboxDomain: config.INTAKE_MAIL_DOMAIN,
          maxFileBytes: config.DOCUMENT_MAX_FILE_BYTES,
        }),
        inboxDomain: config.INTAKE_MAIL_DOMAIN,
      }),
      documentCallers,
    );

    const running = await infra.serve({
      app,
      grpc,
      subscriptions: [
        organizationProjection(hierarchyStore),
        validatorProjection(validationWebhooks),
        automationSwitchProjection(switches),
        onReadyExports(exports),
      ],
      onStop: async () => {
        queueEviction.stop();
        await seed.stop();
        await runner?.stop();
        await lifetime.stop();
        await files.stop();
        await membership.close();
        automation.close();
        webhook.close();
        targets.close();
      },
    });
    seed.start();
    runner?.start();
    files.start();
    lifetime.start();
    return running;
  });
}
