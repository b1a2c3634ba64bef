import { MembershipPermissions } from "@docex/access";
import { deleteRowsOfDocuments, deleteRowsOfQueue, removalSubscription } from "@docex/domain/removals";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { documentPort } from "./clients/document.js";
import type { ExtractionConfig } from "./config.js";
import { DocumentPages } from "./domain/document-pages.js";
import type { DocumentPort } from "./domain/document-port.js";
import { DocumentReader } from "./domain/document-reader.js";
import { LayoutLearning } from "./domain/layout-learning.js";
import { ReadScheduler } from "./domain/read-scheduler.js";
import { ExtractionPool } from "./engine/pool.js";
import { documentCreatedSubscription } from "./events/document-created.js";
import { documentValidatedSubscription } from "./events/document-validated.js";
import { pagesHttp } from "./http/routes.js";
import { LayoutStore } from "./store/layout-store.js";
import { migrations } from "./store/migrations.js";
import { PAGE_TABLES, PageStore } from "./store/page-store.js";
import { RunStore } from "./store/run-store.js";

export { configSchema, type ExtractionConfig } from "./config.js";
export type { DocumentPort } from "./domain/document-port.js";
export { RunStore } from "./store/run-store.js";

/**
 * Builds the extraction service from its configuration and starts it; the handle stops it gracefully.
 * `documents` replaces the gRPC client of the document service (tests).
 */
export async function startExtractionService(
  config: ExtractionConfig,
  options: { logger?: Logger; documents?: DocumentPort } = {},
): Promise<RunningService & { runs: RunStore }> {
  const infra = await connectInfrastructure("extraction", config, { migrations, logger: options.logger });
  const client = options.documents
    ? undefined
    : documentPort(config.DOCUMENT_GRPC_ADDR, {
        identity: infra.grpcIdentity,
        deadlineMs: config.EXTRACTION_DOCUMENT_DEADLINE_MS,
        readDeadlineMs: config.EXTRACTION_READ_DEADLINE_MS,
        metrics: infra.metrics,
        bus: infra.bus,
      });
  // The OCR readers and one kept for text (see ReadScheduler).
  const readers = config.EXTRACTION_WORKERS + 1;
  const scheduler = new ReadScheduler({ readers, ocrReaders: config.EXTRACTION_WORKERS });
  const pool = new ExtractionPool({
    size: readers,
    timeoutMs: config.EXTRACTION_TIMEOUT_MS,
    maxMemoryMb: config.EXTRACTION_MAX_MEMORY_MB,
    onStartFailed: (delayMs) => infra.logger.error({ delay_ms: delayMs }, "a file reader died before it was ready; the next starts later"),
    onUncapped: () =>
      infra.logger.warn("a reading process could not cap its own memory (no prlimit or /proc); only the watchdog bounds it"),
    limits: {
      maxPages: config.EXTRACTION_MAX_PAGES,
      maxOcrPages: config.EXTRACTION_OCR_PAGES,
      ocr: config.EXTRACTION_OCR_PAGES > 0,
      ocrTimeoutMs: config.EXTRACTION_OCR_TIMEOUT_MS,
      minConfidence: config.EXTRACTION_MIN_CONFIDENCE,
    },
  });
  // The pages API's readers: capped like extraction's, with a shorter deadline (a person is waiting).
  const pagePool = new ExtractionPool({
    size: config.EXTRACTION_PAGE_READERS,
    timeoutMs: config.EXTRACTION_PAGE_TIMEOUT_MS,
    maxMemoryMb: config.EXTRACTION_MAX_MEMORY_MB,
    limits: {
      maxPages: config.EXTRACTION_MAX_PAGES,
      maxOcrPages: config.EXTRACTION_OCR_PAGES,
      ocr: config.EXTRACTION_OCR_PAGES > 0,
      ocrTimeoutMs: Math.min(config.EXTRACTION_OCR_TIMEOUT_MS, config.EXTRACTION_PAGE_TIMEOUT_MS),
    },
  });
  const membership = MembershipPermissions.connect(config.MEMBERSHIP_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.EXTRACTION_MEMBERSHIP_DEADLINE_MS,
    cacheMs: config.EXTRACTION_PERMISSION_CACHE_MS,
    bus: infra.bus,
    logger: infra.logger,
    metrics: infra.metrics,
  });
  const closeResources = async () => {
    scheduler.close();
    await Promise.all([pool.close(), pagePool.close()]);
    await membership.close();
    client?.close();
  };
  return infra.startOrClose(closeResources, async () => {
    if (!(await pool.started(60_000)) || !(await pagePool.started(30_000)))
      infra.logger.warn("the file readers were not all started within 60 s; the first files wait for them");
    const swept = await pool.sweep();
    if (swept > 0) infra.logger.info({ directories: swept }, "removed the temporary files of readers of an earlier run");
    const runs = new RunStore(infra.sql);
    const pageStore = new PageStore(infra.sql);
    const documents = options.documents ?? (client as DocumentPort);
    const layouts = new LayoutLearning({ documents, pages: pageStore, layouts: new LayoutStore(infra.sql), logger: infra.logger });
    const reader = new DocumentReader({
      documents,
      pool,
      scheduler,
      runs,
      pages: pageStore,
      layouts,
      logger: infra.logger,
      metrics: infra.metrics,
      maxFileBytes: config.EXTRACTION_MAX_FILE_BYTES,
      maxReads: config.EXTRACTION_MAX_READS,
    });
    const pages = new DocumentPages({
      documents,
      permissions: membership,
      store: pageStore,
      pool: pagePool,
      maxFileBytes: config.EXTRACTION_MAX_FILE_BYTES,
    });
    const app = infra.httpApp(pagesHttp(pages, infra.verifier));
    // No gRPC service of its own: the server answers grpc.health.v1 only, like every other process.
    const grpc = infra.grpcServer();
    const running = await infra.serve({
      app,
      grpc,
      subscriptions: [
        documentCreatedSubscription(reader, {
          // Reading may take the whole worker deadline plus the file's transfer; the ack must outlast both.
          ackWaitMs: config.EXTRACTION_TIMEOUT_MS + config.EXTRACTION_READ_DEADLINE_MS + 30_000,
          maxInFlight: config.EXTRACTION_CONCURRENCY,
          // Every document in hand has a handler waiting for its turn in the scheduler, which decides the order.
          concurrency: config.EXTRACTION_CONCURRENCY,
          onStop: () => scheduler.close(),
        }),
        documentValidatedSubscription(layouts),
        removalSubscription(
          "extraction__queue_deleted",
          "queue.deleted",
          deleteRowsOfQueue(infra.sql, ["extraction_runs", "extraction_reads", "layout_places", "layout_validations", ...PAGE_TABLES]),
        ),
        removalSubscription(
          "extraction__documents_purged",
          "documents.purged",
          deleteRowsOfDocuments(infra.sql, ["extraction_runs", "extraction_reads", ...PAGE_TABLES]),
        ),
      ],
      onStop: closeResources,
    });
    return { ...running, runs };
  });
}
