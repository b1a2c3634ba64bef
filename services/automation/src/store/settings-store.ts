import type { Sql, Tx } from "@docex/kit/db";
import { defaultSettings, type ExtractionEvaluationField, type QueueSettings, type Switch, type SwitchName } from "../domain/records.js";

interface SettingsRow {
  queue_id: string;
  accounting_automation: Switch;
  automation_rules: Switch;
  extraction_evaluation_status: Switch;
  document_confidence: number | null;
  evaluation_fields: ExtractionEvaluationField[];
}

const COLUMNS = "queue_id, accounting_automation, automation_rules, extraction_evaluation_status, document_confidence, evaluation_fields";

const SWITCH_COLUMNS: Readonly<Record<SwitchName, string>> = {
  accounting_automation: "accounting_automation",
  automation_rules: "automation_rules",
  extraction_evaluation: "extraction_evaluation_status",
};

function settingsOf(row: SettingsRow): QueueSettings {
  return {
    queueId: row.queue_id,
    accountingAutomation: row.accounting_automation,
    automationRules: row.automation_rules,
    extractionEvaluation: {
      status: row.extraction_evaluation_status,
      documentConfidence: row.document_confidence,
      fields: row.evaluation_fields,
    },
  };
}

/** The switches and extraction evaluation settings of each queue. */
export class SettingsStore {
  constructor(private readonly sql: Sql) {}

  async find(queueId: string, tx?: Tx): Promise<QueueSettings> {
    const row = await this.sql.one<SettingsRow>(`SELECT ${COLUMNS} FROM queue_settings WHERE queue_id = $1`, [queueId], tx);
    return row ? settingsOf(row) : defaultSettings(queueId);
  }

  /**
   * Creates the queue's row if needed and locks it until `tx` ends: every change of a queue's settings or rules
   * takes this lock first, so positions are decided, and the state before a change is read, one change at a time.
   */
  async lock(tx: Tx, queueId: string, organizationId: string): Promise<QueueSettings> {
    await this.sql.rows(
      "INSERT INTO queue_settings (queue_id, organization_id) VALUES ($1, $2) ON CONFLICT (queue_id) DO NOTHING RETURNING queue_id",
      [queueId, organizationId],
      tx,
    );
    const row = await this.sql.one<SettingsRow>(`SELECT ${COLUMNS} FROM queue_settings WHERE queue_id = $1 FOR UPDATE`, [queueId], tx);
    if (!row) throw new Error(`queue_settings row of ${queueId} vanished`);
    return settingsOf(row);
  }

  /** Sets one switch of a queue whose row the caller locked (`lock`) in `tx`. */
  async setSwitch(tx: Tx, queueId: string, name: SwitchName, value: Switch): Promise<QueueSettings> {
    const column = SWITCH_COLUMNS[name];
    const row = await this.sql.one<SettingsRow>(
      `UPDATE queue_settings SET ${column} = $2, updated_at = now() WHERE queue_id = $1 RETURNING ${COLUMNS}`,
      [queueId, value],
      tx,
    );
    return settingsOf(lockedRow(queueId, row));
  }

  /** Replaces the thresholds of a queue whose row the caller locked (`lock`) in `tx`; the switch stays as it is. */
  async setExtractionEvaluation(
    tx: Tx,
    queueId: string,
    documentConfidence: number,
    fields: ExtractionEvaluationField[],
  ): Promise<QueueSettings> {
    const row = await this.sql.one<SettingsRow>(
      `UPDATE queue_settings SET document_confidence = $2, evaluation_fields = $3::jsonb, updated_at = now()
       WHERE queue_id = $1 RETURNING ${COLUMNS}`,
      [queueId, documentConfidence, JSON.stringify(fields)],
      tx,
    );
    return settingsOf(lockedRow(queueId, row));
  }
}

function lockedRow(queueId: string, row: SettingsRow | undefined): SettingsRow {
  if (!row) throw new Error(`queue_settings row of ${queueId} is missing: lock it before changing it`);
  return row;
}
