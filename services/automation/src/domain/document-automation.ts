import { createEvent, type DocexEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { UnitOfWork } from "@docex/kit/db";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import type { Logger } from "@docex/kit/logger";
import type { RuleStore } from "../store/rule-store.js";
import type { DocumentRun, RunOutcome, RunStore } from "../store/run-store.js";
import type { SettingsStore } from "../store/settings-store.js";
import { type AutomationPlan, type DocumentSnapshot, isEmptyPlan, planAutomation } from "./automation-plan.js";
import type { ChangeOutcome, DocumentPort, DocumentState } from "./document-port.js";
import type { AutomationBlocker } from "./extraction-evaluation.js";
import type { QueueSettings } from "./records.js";
import { type RegisterLookup, registerCheckOf } from "./register-lookup.js";

/** The durable consumer of document.extracted; also the name under which handled event ids are claimed. */
export const DOCUMENT_EXTRACTED_CONSUMER = "automation__document_extracted";

/** One change based on the extraction, then re-evaluations after refusals; a document that keeps changing is left to people. */
export const MAX_ATTEMPTS = 4;

export type ExtractedEvent = DocexEvent<"document.extracted">;

export interface DocumentAutomationDependencies {
  /** The service's unit of work: the domain opens its transactions here. */
  sql: UnitOfWork;
  settings: SettingsStore;
  rules: RuleStore;
  runs: RunStore;
  events: OutboxEvents;
  documents: DocumentPort;
  registerLookup: RegisterLookup;
  logger: Logger;
}

/**
 * What the document shows as `automation_blockers` after this run: the thresholds evaluation found missed, or, when it
 * was met, the refusal that kept the status move from happening. Undefined with evaluation off (nothing to say).
 */
function blockersOf(plan: AutomationPlan, lastRefusal: string): AutomationBlocker[] | undefined {
  if (!plan.evaluation) return undefined;
  if (!plan.evaluation.met) return plan.evaluation.blockers;
  if (plan.status === undefined && lastRefusal)
    return [{ key: null, reason: `the move out of manual validation was refused: ${lastRefusal}` }];
  return [];
}

const anySwitchOn = (settings: QueueSettings) =>
  settings.automationRules === "enabled" || settings.extractionEvaluation.status === "enabled";

function snapshotOf(document: DocumentState): DocumentSnapshot {
  return { annotations: document.annotations, confidence: document.confidence, approvers: document.approvers };
}

/**
 * Runs a queue's automation on a document whose extraction arrived, and hands the result to the document
 * service (ApplyDocumentChanges, based on the event's version, keyed by the event id).
 *
 * A refusal is answered with the document as it is now, and the run re-evaluates on that:
 * - `version_conflict` (someone changed the document after the extraction: learning filled a field, a
 *   validation answer arrived, a person edited it): while the document is still `to_validate`, the rules run
 *   again on its current annotations, with values people typed left alone; once it moved on, automation
 *   leaves it to people.
 * - `blocked_by_error_messages` / `status_move_not_allowed`: the change is applied without the status move.
 * Each attempt after the first is keyed `<event id>:<attempt>`, so a redelivered event follows the same path
 * and the document service answers every attempt from its memory instead of applying it again.
 */
export class DocumentAutomation {
  constructor(private readonly deps: DocumentAutomationDependencies) {}

  async handle(event: ExtractedEvent): Promise<RunOutcome | "duplicate"> {
    const { runs, settings: settingsStore, rules, documents } = this.deps;
    if (await runs.wasProcessed(DOCUMENT_EXTRACTED_CONSUMER, event.id)) return "duplicate";
    const { data } = event;
    const ctx = event.request_id ? { requestId: event.request_id } : {};
    const base = { eventId: event.id, documentId: data.document_id, queueId: data.queue_id, organizationId: data.organization_id };
    const finish = (run: Partial<DocumentRun> & Pick<DocumentRun, "outcome">, plan?: AutomationPlan, applied?: ChangeOutcome) =>
      this.finish(event, { ...this.emptyRun(base, data.version), ...run }, plan, applied);

    const settings = await settingsStore.find(data.queue_id);
    if (!anySwitchOn(settings)) return finish({ outcome: "switched_off" });

    let queue: Awaited<ReturnType<DocumentPort["queue"]>>;
    try {
      queue = await documents.queue(data.queue_id, ctx);
    } catch (error) {
      if (error instanceof NotFoundError) return finish({ outcome: "queue_gone" });
      throw error;
    }
    const [accountingRules, approvalRules] = await Promise.all([rules.list(queue.id, "accounting"), rules.list(queue.id, "approval")]);
    const inRegister = registerCheckOf(this.deps.registerLookup, data.organization_id, ctx);

    let snapshot: DocumentSnapshot = { annotations: data.annotations, confidence: data.confidence, approvers: [] };
    let version = data.version;
    let mayMoveStatus = true;
    let lastReason = "";
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const plan = await planAutomation({
        settings,
        accountingRules,
        approvalRules,
        schema: queue.annotationSchema,
        document: snapshot,
        inRegister,
        mayMoveStatus,
      });
      const planned = {
        documentVersion: version,
        attempts: attempt,
        appliedRules: plan.appliedRules,
        approvers: plan.approvers,
        approvalRoute: plan.route,
      };
      const automationBlockers = blockersOf(plan, lastReason);
      if (isEmptyPlan(plan)) {
        // Nothing to change, but the document should say what kept it back.
        if (automationBlockers?.length)
          await documents.applyChanges(
            {
              documentId: data.document_id,
              expectedVersion: 0,
              annotations: [],
              approvers: [],
              appliedRules: [],
              automationBlockers,
              idempotencyKey: `${event.id}:blockers`,
            },
            ctx,
          );
        const reasons = (automationBlockers ?? []).map((blocker) => blocker.reason);
        return finish({ ...planned, outcome: "nothing_to_apply", reason: [lastReason, ...reasons].filter(Boolean).join("; ") }, plan);
      }
      const outcome = await documents
        .applyChanges(
          {
            documentId: data.document_id,
            expectedVersion: version,
            annotations: plan.annotations,
            approvers: plan.approvers,
            ...(plan.route ? { approvalRoute: plan.route } : {}),
            ...(plan.status ? { status: plan.status } : {}),
            appliedRules: plan.appliedRules,
            ...(automationBlockers ? { automationBlockers } : {}),
            idempotencyKey: attempt === 1 ? event.id : `${event.id}:${attempt}`,
          },
          ctx,
        )
        .catch((error: unknown) => {
          // The document service found the change malformed: asking again would fail the same way.
          if (error instanceof ValidationError) return error;
          throw error;
        });
      if (outcome instanceof ValidationError) {
        this.deps.logger.error({ err: outcome, document_id: data.document_id }, "document service refused automation's change as invalid");
        return finish({ ...planned, outcome: "refused", reason: `invalid_change: ${outcome.message}` }, plan);
      }
      if (outcome.applied) return finish({ ...planned, outcome: "applied", status: plan.status ?? null }, plan, outcome);
      lastReason = outcome.reason;
      this.deps.logger.info(
        { document_id: data.document_id, reason: outcome.reason, attempt },
        "document refused automation's change; re-evaluating",
      );
      if (outcome.reason === "document_not_editable") return finish({ ...planned, outcome: "refused", reason: outcome.reason }, plan);
      if (outcome.document.status !== "to_validate")
        return finish({ ...planned, outcome: "document_moved_on", reason: outcome.reason }, plan);
      if (outcome.reason !== "version_conflict") mayMoveStatus = false;
      snapshot = snapshotOf(outcome.document);
      version = outcome.document.version;
    }
    return finish({ outcome: "refused", reason: lastReason, attempts: MAX_ATTEMPTS, documentVersion: version });
  }

  private emptyRun(base: Pick<DocumentRun, "eventId" | "documentId" | "queueId" | "organizationId">, version: number): DocumentRun {
    return {
      ...base,
      documentVersion: version,
      outcome: "nothing_to_apply",
      reason: "",
      appliedRules: [],
      status: null,
      approvers: [],
      approvalRoute: null,
      attempts: 0,
    };
  }

  /**
   * Records the run and, when the document took the change, announces automation.applied, both in one
   * transaction with the claim of the event id: a redelivery that raced this one records and announces nothing.
   */
  private async finish(
    event: ExtractedEvent,
    run: DocumentRun,
    plan?: AutomationPlan,
    outcome?: ChangeOutcome,
  ): Promise<RunOutcome | "duplicate"> {
    const claimed = await this.deps.sql.transaction(async (tx) => {
      if (!(await this.deps.runs.claimEvent(tx, DOCUMENT_EXTRACTED_CONSUMER, event.id))) return false;
      await this.deps.runs.insert(tx, run);
      if (outcome?.applied && plan)
        await this.deps.events.add(
          tx,
          createEvent("automation.applied", {
            organization_id: event.data.organization_id,
            data: { document_id: run.documentId, queue_id: run.queueId, applied_rules: plan.appliedRules, status: plan.status ?? null },
            // The system acted: the extraction that triggered the run was nobody's request here.
            actor_user_id: null,
            ...(event.request_id ? { request_id: event.request_id } : {}),
          }),
        );
      return true;
    });
    if (!claimed) return "duplicate";
    this.deps.logger.info(
      {
        document_id: run.documentId,
        outcome: run.outcome,
        applied_rules: run.appliedRules,
        status: run.status,
        reason: run.reason || undefined,
      },
      "automation ran on an extracted document",
    );
    return run.outcome;
  }
}
