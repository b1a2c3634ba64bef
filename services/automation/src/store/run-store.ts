import { claimEvent } from "@docex/kit/bus";
import type { Sql, Tx } from "@docex/kit/db";
import type { ApprovalStage, DocumentStatus } from "../domain/records.js";

/** How a run ended. */
export const RUN_OUTCOMES = ["applied", "nothing_to_apply", "switched_off", "refused", "document_moved_on", "queue_gone"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export interface DocumentRun {
  eventId: string;
  documentId: string;
  queueId: string;
  organizationId: string;
  documentVersion: number;
  outcome: RunOutcome;
  reason: string;
  appliedRules: string[];
  status: DocumentStatus | null;
  approvers: string[];
  approvalRoute: { stages: ApprovalStage[]; stage: number } | null;
  attempts: number;
}

/** The record of documents automation handled: one row per document.extracted event. */
export class RunStore {
  constructor(private readonly sql: Sql) {}

  /** Records in `tx` that `consumer` handled `eventId`; false when it was handled before (a redelivery). */
  claimEvent(tx: Tx, consumer: string, eventId: string): Promise<boolean> {
    return claimEvent(this.sql, tx, consumer, eventId);
  }

  async insert(tx: Tx, run: DocumentRun): Promise<void> {
    await this.sql.rows(
      `INSERT INTO document_runs (event_id, document_id, queue_id, organization_id, document_version, outcome, reason, applied_rules,
                                  status, approvers, approval_route, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid[], $9, $10::uuid[], $11::jsonb, $12)
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [
        run.eventId,
        run.documentId,
        run.queueId,
        run.organizationId,
        run.documentVersion,
        run.outcome,
        run.reason,
        run.appliedRules,
        run.status,
        run.approvers,
        run.approvalRoute === null ? null : JSON.stringify(run.approvalRoute),
        run.attempts,
      ],
      tx,
    );
  }

  /** Whether `consumer` already handled `eventId` (the kit's processed_events, written by claimEvent). */
  async wasProcessed(consumer: string, eventId: string): Promise<boolean> {
    const row = await this.sql.one("SELECT 1 AS found FROM processed_events WHERE consumer = $1 AND event_id = $2", [consumer, eventId]);
    return row !== undefined;
  }
}
