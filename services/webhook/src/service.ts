import { MembershipPermissions, type PermissionSource } from "@docex/access";
import { removalSubscription } from "@docex/domain/removals";
import type { Subscription } from "@docex/kit/bus";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type RunningService } from "@docex/kit/runtime";
import { webhookService } from "@docex/protos";
import { documentPort } from "./clients/document.js";
import type { WebhookConfig } from "./config.js";
import { DeliveryIntake } from "./delivery/delivery-intake.js";
import { DeliveryMetrics } from "./delivery/delivery-metrics.js";
import { DeliverySender } from "./delivery/delivery-sender.js";
import { EndpointBreakers } from "./delivery/endpoint-breakers.js";
import { FailingWebhookSweep } from "./delivery/failing-webhook-sweep.js";
import { ReceiverTransport } from "./delivery/receiver-transport.js";
import { AccessControl } from "./domain/access.js";
import { Deliveries } from "./domain/deliveries.js";
import type { DocumentPort } from "./domain/document-port.js";
import { KeySealer } from "./domain/key-sealing.js";
import { ReceiverHealth } from "./domain/receiver-health.js";
import { isValidationType } from "./domain/records.js";
import { RetryPolicy } from "./domain/retry-policy.js";
import { SigningKeys } from "./domain/signing-keys.js";
import { type HostResolver, systemResolver, TargetPolicy } from "./domain/target-policy.js";
import { Webhooks } from "./domain/webhooks.js";
import { deliveryFanOutSubscriptions } from "./events/delivery-fan-out.js";
import { replacedValidationWebhooks } from "./events/replaced-validation-webhooks.js";
import { webhookCallers, webhookHandlers } from "./grpc/webhook-handlers.js";
import { webhookHttp } from "./http/routes.js";
import { DeliveryStore } from "./store/delivery-store.js";
import { migrations } from "./store/migrations.js";
import { WebhookStore } from "./store/webhook-store.js";
import { ExternalValidation } from "./validation/external-validation.js";
import { ValidationTargetRegistry, ValidationTargets } from "./validation/validation-targets.js";

export { configSchema, type WebhookConfig } from "./config.js";
export { signBody } from "./domain/signature.js";

export interface WebhookServiceOptions {
  logger?: Logger;
  /** Replaces the gRPC client of the document service (ResolveEntity, GetDocument, RecordValidationWebhook, HasValidationLink). */
  entities?: DocumentPort;
  /** Replaces the gRPC client of membership (CheckPermission). */
  permissions?: PermissionSource & { close(): Promise<void> };
  /** Replaces the system's DNS for the SSRF guard, at creation and at connect time. */
  resolver?: HostResolver;
  /** Replaces the retry schedule built from WEBHOOK_RETRY_SCHEDULE: tests fix its jitter and read the waits it chose. */
  retry?: RetryPolicy;
}

/** Builds the webhook service from its configuration and starts it; the handle stops it gracefully. */
export async function startWebhookService(config: WebhookConfig, options: WebhookServiceOptions = {}): Promise<RunningService> {
  const sealer = KeySealer.fromBase64(config.WEBHOOK_KEY_ENCRYPTION_KEY);
  const infra = await connectInfrastructure("webhook", config, { migrations, logger: options.logger });
  const entities =
    options.entities ??
    documentPort(config.DOCUMENT_GRPC_ADDR, {
      identity: infra.grpcIdentity,
      deadlineMs: config.WEBHOOK_DOCUMENT_DEADLINE_MS,
      metrics: infra.metrics,
    });
  const permissions =
    options.permissions ??
    MembershipPermissions.connect(config.MEMBERSHIP_GRPC_ADDR, {
      identity: infra.grpcIdentity,
      deadlineMs: config.WEBHOOK_MEMBERSHIP_DEADLINE_MS,
      cacheMs: config.WEBHOOK_PERMISSION_CACHE_MS,
      bus: infra.bus,
      logger: infra.logger,
      metrics: infra.metrics,
    });
  const targets = new TargetPolicy(config.WEBHOOK_ALLOW_PRIVATE_TARGETS, options.resolver ?? systemResolver);
  const breakerSettings = {
    errorThresholdPercentage: config.WEBHOOK_BREAKER_ERROR_PERCENTAGE,
    volumeThreshold: config.WEBHOOK_BREAKER_VOLUME_THRESHOLD,
    resetTimeoutMs: config.WEBHOOK_BREAKER_RESET_MS,
  };
  const breakers = new EndpointBreakers(breakerSettings, infra.metrics);
  const transport = new ReceiverTransport(targets);
  // Validation calls: their own connections, and one breaker per link whose timeout is the type's budget.
  const validationTransport = new ReceiverTransport(targets);
  const validationBreakers = {
    document_validation: new EndpointBreakers({ ...breakerSettings, timeoutMs: config.DOCUMENT_VALIDATION_TIMEOUT_MS }, infra.metrics),
    initial_document_validation: new EndpointBreakers(
      { ...breakerSettings, timeoutMs: config.INITIAL_VALIDATION_TIMEOUT_MS },
      infra.metrics,
    ),
  };
  const closeValidation = async () => {
    for (const breakers of Object.values(validationBreakers)) breakers.shutdown();
    await validationTransport.close();
  };
  const closeOnFailure = async () => {
    await transport.close();
    breakers.shutdown();
    await closeValidation();
    await permissions.close().catch(() => undefined);
    entities.close();
  };
  return infra.startOrClose(closeOnFailure, async () => {
    const sql = infra.sql;
    const webhookStore = new WebhookStore(sql);
    const deliveryStore = new DeliveryStore(sql);
    const access = new AccessControl(permissions, entities);
    const events = infra.events;
    const signingKeys = new SigningKeys(webhookStore, access, sealer, events, config.WEBHOOK_KEY_ROTATION_GRACE_MS);
    const retry = options.retry ?? new RetryPolicy({ scheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE });
    const metrics: DeliveryMetrics = new DeliveryMetrics(infra.metrics, breakers, (): number => sender.inFlightCount);
    const sender: DeliverySender = new DeliverySender({
      store: deliveryStore,
      transport,
      breakers,
      keys: signingKeys,
      retry,
      metrics,
      logger: infra.logger,
      maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
      maxInFlightPerOrganization: config.WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      leaseMs: config.WEBHOOK_DELIVERY_LEASE_MS,
      timeoutMs: config.WEBHOOK_DELIVERY_TIMEOUT_MS,
    });
    const intake = new DeliveryIntake({
      store: deliveryStore,
      sender,
      maxAttempts: retry.maxAttempts,
      leaseMs: config.WEBHOOK_DELIVERY_LEASE_MS,
      onCreated: (type, count) => metrics.created.inc({ type }, count),
    });
    const webhooks = new Webhooks(webhookStore, access, targets, events, entities, config.WEBHOOK_MAX_PER_ORGANIZATION, infra.logger);
    const domain = {
      webhooks,
      deliveries: new Deliveries(deliveryStore, webhooks, () => sender.wake()),
      signingKeys,
      health: new ReceiverHealth(webhooks, deliveryStore, (webhook) =>
        // Deprecated validation webhooks are called through the validation breakers, keyed by their id.
        isValidationType(webhook.type)
          ? validationBreakers[webhook.type].stateOf(`validation-webhook/${webhook.id}`)
          : breakers.stateOf(EndpointBreakers.keyOf(webhook.url)),
      ),
    };
    const sweep = new FailingWebhookSweep({
      store: webhookStore,
      events,
      logger: infra.logger,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_FAILING_MS,
      intervalMs: config.WEBHOOK_FAILING_SWEEP_INTERVAL_MS,
    });

    const http = webhookHttp(domain, infra.verifier);
    const app = infra.httpApp(http);
    const validation = new ExternalValidation({
      targets: new ValidationTargets(webhookStore, signingKeys),
      transport: validationTransport,
      breakers: validationBreakers,
      budgetsMs: {
        document_validation: config.DOCUMENT_VALIDATION_TIMEOUT_MS,
        initial_document_validation: config.INITIAL_VALIDATION_TIMEOUT_MS,
      },
      metrics: infra.metrics,
      logger: infra.logger,
    });
    const grpc = infra.grpcServer();
    grpc.addService(
      webhookService.definition,
      webhookService.serviceName,
      webhookHandlers({
        validation,
        webhooks,
        targets: new ValidationTargetRegistry(webhookStore, targets),
      }),
      webhookCallers,
    );

    // The event subscriptions of this service: the kit's batch subscriptions, started once the sender runs.
    const fanOuts = deliveryFanOutSubscriptions({
      intake,
      logger: infra.logger,
      databaseName: config.DATABASE_NAME,
      ackWaitMs: config.WEBHOOK_CONSUMER_ACK_WAIT_MS,
    });
    const consumers: Subscription[] = [];
    const running = await infra.serve({
      app,
      grpc,
      subscriptions: [
        removalSubscription("webhook__queue_deleted", "queue.deleted", (event) => webhookStore.removeUnder("queue", event.data.queue_id)),
        removalSubscription("webhook__workspace_deleted", "workspace.deleted", (event) =>
          webhookStore.removeUnder("workspace", event.data.workspace_id),
        ),
        removalSubscription("webhook__documents_purged", "documents.purged", (event) =>
          webhookStore.removeDocuments(event.data.document_ids),
        ),
        replacedValidationWebhooks(webhooks),
      ],
      // At SIGTERM, not after the HTTP drain: no delivery is claimed any more, those on the wire finish and are
      // recorded (WEBHOOK_DELIVERY_TIMEOUT_MS at most), and another replica sends the rest.
      onDrain: async () => {
        await sweep.stop();
        await Promise.all(consumers.map((consumer) => consumer.stop()));
        await sender.stop();
      },
      onStop: async () => {
        await closeValidation();
        await permissions.close();
        entities.close();
      },
    });
    sender.start();
    sweep.start();
    try {
      for (const fanOut of fanOuts) consumers.push(await infra.bus.subscribeBatches(fanOut));
    } catch (error) {
      await running.stop();
      throw error;
    }
    return running;
  });
}
