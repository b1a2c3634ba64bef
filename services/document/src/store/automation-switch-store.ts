import type { Sql } from "@docex/kit/db";
import { QUEUE_SWITCH_DEFAULTS, type QueueSwitches, type SwitchName } from "@docex/queue-dto";
import { z } from "zod";
import type { AutomationSwitches } from "../domain/automation-switches.js";

/** One switch of a queue (each is kept in its own row) as a `configuration.changed` event showed it. */
export interface SwitchState {
  queueId: string;
  resource: SwitchName;
  /** What configuration.changed shows as `current`: `{status}`, and for extraction evaluation its thresholds too. */
  state: unknown;
  changedAt: string;
}

// Read leniently: automation owns these settings and checked them; a state this reader cannot use shows the default.
const switchState = z.enum(["enabled", "disabled"]);
const simpleState = z.object({ status: switchState });
const evaluationState = z.object({
  status: switchState,
  document_confidence: z.number().nullable(),
  fields: z.array(z.object({ key: z.string(), min_confidence: z.number(), required: z.boolean() })),
});

/** Keeps the newer state: a state older than the kept one, redelivered or late, changes nothing. */
const UPSERT = `INSERT INTO automation_switches (queue_id, resource, state, changed_at) VALUES ($1, $2, $3::jsonb, $4)
  ON CONFLICT (queue_id, resource) DO UPDATE SET state = EXCLUDED.state, changed_at = EXCLUDED.changed_at
  WHERE automation_switches.changed_at <= EXCLUDED.changed_at`;

function switchesFrom(rows: { resource: string; state: unknown }[]): QueueSwitches {
  const switches: QueueSwitches = { ...QUEUE_SWITCH_DEFAULTS, extractionEvaluation: { ...QUEUE_SWITCH_DEFAULTS.extractionEvaluation } };
  for (const { resource, state } of rows) {
    if (resource === "extraction_evaluation") {
      const parsed = evaluationState.safeParse(state);
      if (parsed.success)
        switches.extractionEvaluation = {
          status: parsed.data.status,
          documentConfidence: parsed.data.document_confidence,
          fields: parsed.data.fields,
        };
    } else {
      const parsed = simpleState.safeParse(state);
      if (!parsed.success) continue;
      if (resource === "accounting_automation") switches.accountingAutomation = parsed.data.status;
      if (resource === "automation_rules") switches.automationRules = parsed.data.status;
    }
  }
  return switches;
}

/**
 * The projection of automation's switches (table automation_switches), and the queues whose switches are still to
 * be asked of automation once (table automation_switch_seeds, filled by the migration that made the projection).
 */
export class AutomationSwitchStore implements AutomationSwitches {
  constructor(private readonly sql: Sql) {}

  /** Keeps the newest state of a switch; an older one, redelivered or late, changes nothing. */
  async record(state: SwitchState): Promise<void> {
    await this.sql.run(UPSERT, [state.queueId, state.resource, JSON.stringify(state.state), state.changedAt]);
  }

  async of(queueId: string): Promise<QueueSwitches> {
    return switchesFrom(
      await this.sql.rows<{ resource: string; state: unknown }>("SELECT resource, state FROM automation_switches WHERE queue_id = $1", [
        queueId,
      ]),
    );
  }

  /** Up to `limit` queues whose switches automation has not yet been asked for. */
  async unseeded(limit: number): Promise<string[]> {
    const rows = await this.sql.rows<{ queue_id: string }>("SELECT queue_id FROM automation_switch_seeds ORDER BY queue_id LIMIT $1", [
      limit,
    ]);
    return rows.map((row) => row.queue_id);
  }

  /** Records automation's answer for a queue as of `askedAt` (newer events win) and strikes the queue off the seeds. */
  async seed(queueId: string, switches: QueueSwitches, askedAt: string): Promise<void> {
    const { status, documentConfidence, fields } = switches.extractionEvaluation;
    await this.sql.transaction(async (tx) => {
      for (const [resource, state] of [
        ["accounting_automation", { status: switches.accountingAutomation }],
        ["automation_rules", { status: switches.automationRules }],
        ["extraction_evaluation", { status, document_confidence: documentConfidence, fields }],
      ] as const)
        await this.sql.run(UPSERT, [queueId, resource, JSON.stringify(state), askedAt], tx);
      await this.sql.run("DELETE FROM automation_switch_seeds WHERE queue_id = $1", [queueId], tx);
    });
  }
}
