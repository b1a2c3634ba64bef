import type { Sql } from "@docex/kit";
import type { FailurePolicy, ValidationLinkPolicies } from "../domain/validation.js";

export interface ValidationLinkState {
  queueId: string;
  type: string;
  /** False once the link is removed. */
  present: boolean;
  failurePolicy: FailurePolicy;
  changedAt: string;
}

/** The projection of the webhook service's validation links (table validation_links). */
export class ValidationLinkStore implements ValidationLinkPolicies {
  constructor(private readonly sql: Sql) {}

  /** Keeps the newest state of a link; an older one, redelivered or late, changes nothing. */
  async record(state: ValidationLinkState): Promise<void> {
    await this.sql.rows(
      `INSERT INTO validation_links (queue_id, type, present, failure_policy, changed_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (queue_id, type) DO UPDATE
         SET present = EXCLUDED.present, failure_policy = EXCLUDED.failure_policy, changed_at = EXCLUDED.changed_at
         WHERE validation_links.changed_at <= EXCLUDED.changed_at`,
      [state.queueId, state.type, state.present, state.failurePolicy, state.changedAt],
    );
  }

  async policyOf(queueId: string, type: string): Promise<FailurePolicy | undefined> {
    const row = await this.sql.one<{ failure_policy: FailurePolicy }>(
      "SELECT failure_policy FROM validation_links WHERE queue_id = $1 AND type = $2 AND present",
      [queueId, type],
    );
    return row?.failure_policy;
  }
}
