import { MembershipPermissions } from "@docex/access";
import { deleteRowsOfQueue, removalSubscription } from "@docex/domain/removals";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { documentPort } from "./clients/document.js";
import type { LearningConfig } from "./config.js";
import { AccessControl } from "./domain/access.js";
import { FeedbackIntake } from "./domain/feedback.js";
import { LearnedFill } from "./domain/learned-fill.js";
import { SupplierMemories } from "./domain/supplier-memory.js";
import { documentExtractedSubscription } from "./events/document-extracted.js";
import { documentValidatedSubscription } from "./events/document-validated.js";
import { learningHttp } from "./http/routes.js";
import { MemoryStore } from "./store/memory-store.js";
import { migrations } from "./store/migrations.js";

export { configSchema, type LearningConfig } from "./config.js";

/** Builds the learning service from its configuration and starts it; the handle stops it gracefully. */
export async function startLearningService(config: LearningConfig, options: { logger?: Logger } = {}): Promise<RunningService> {
  const infra = await connectInfrastructure("learning", config, { migrations, logger: options.logger });
  const documents = documentPort(config.DOCUMENT_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.LEARNING_DOCUMENT_DEADLINE_MS,
    metrics: infra.metrics,
    bus: infra.bus,
  });
  const membership = MembershipPermissions.connect(config.MEMBERSHIP_GRPC_ADDR, {
    identity: infra.grpcIdentity,
    deadlineMs: config.LEARNING_MEMBERSHIP_DEADLINE_MS,
    cacheMs: config.LEARNING_PERMISSION_CACHE_MS,
    bus: infra.bus,
    logger: infra.logger,
    metrics: infra.metrics,
  });
  const closeClients = async () => {
    await membership.close();
    documents.close();
  };
  return infra.startOrClose(closeClients, async () => {
    const store = new MemoryStore(infra.sql);
    const memories = new SupplierMemories(store);
    const feedback = new FeedbackIntake({
      documents,
      access: new AccessControl(membership),
      store,
      events: infra.events,
    });
    const fill = new LearnedFill({ store, memories, documents });

    const http = learningHttp(feedback, infra.verifier);
    const app = infra.httpApp(http);
    // No gRPC API (nothing called Learning.Suggest, so it is gone); the server stays for grpc.health.v1 on
    // GRPC_PORT, which the deploy manifests declare.
    const grpc = infra.grpcServer();

    return infra.serve({
      app,
      grpc,
      subscriptions: [
        documentExtractedSubscription(fill),
        documentValidatedSubscription(feedback),
        removalSubscription(
          "learning__queue_deleted",
          "queue.deleted",
          // feedback last: the others name the feedback they came from.
          deleteRowsOfQueue(infra.sql, ["field_confirmations", "pinned_fields", "supplier_preferences", "learned_fills", "feedback"]),
        ),
        // What the queue learned from a purged document stays the queue's memory; the feedback forgets the document.
        removalSubscription("learning__documents_purged", "documents.purged", (event) =>
          infra.sql.transaction(async (tx) => {
            await infra.sql.run("DELETE FROM learned_fills WHERE document_id = ANY($1::uuid[])", [event.data.document_ids], tx);
            await infra.sql.run(
              "UPDATE feedback SET document_id = NULL WHERE document_id = ANY($1::uuid[])",
              [event.data.document_ids],
              tx,
            );
          }),
        ),
      ],
      onStop: closeClients,
    });
  });
}
