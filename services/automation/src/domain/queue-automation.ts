import { type FieldError, ValidationError } from "@docex/kit";
import type { SettingsStore } from "../store/settings-store.js";
import type { Actor, QueueAccess } from "./queue-access.js";
import {
  type ExtractionEvaluationField,
  locateKey,
  type QueueRecord,
  type QueueSettings,
  type Switch,
  type SwitchName,
} from "./records.js";

/** A queue with the automation settings its DTO shows. */
export interface QueueView {
  queue: QueueRecord;
  settings: QueueSettings;
}

/** The switches and the extraction evaluation settings of a queue. */
export class QueueAutomation {
  constructor(
    private readonly access: QueueAccess,
    private readonly settings: SettingsStore,
  ) {}

  /**
   * Turns one switch. Extraction evaluation may be enabled before its thresholds are set; until PUT
   * extraction-evaluation sets document_confidence, no document meets them.
   */
  async setSwitch(actor: Actor, queueRef: string, name: SwitchName, value: Switch): Promise<QueueView> {
    const queue = await this.access.manageable(actor, queueRef);
    return { queue, settings: await this.settings.setSwitch(queue.id, queue.organizationId, name, value) };
  }

  /** Replaces the thresholds; the switch stays as it is. Every key must be a field or column of the queue's schema. */
  async setExtractionEvaluation(
    actor: Actor,
    queueRef: string,
    input: { documentConfidence: number; fields: ExtractionEvaluationField[] },
  ): Promise<QueueSettings> {
    const queue = await this.access.manageable(actor, queueRef);
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    input.fields.forEach((field, index) => {
      if (seen.has(field.key)) errors.push({ path: `fields.${index}.key`, message: `"${field.key}" appears more than once` });
      else if (!locateKey(queue.annotationSchema, field.key))
        errors.push({
          path: `fields.${index}.key`,
          message: `unknown field key "${field.key}": the queue's annotation schema has no such field`,
        });
      seen.add(field.key);
    });
    if (errors.length)
      throw new ValidationError("The extraction evaluation does not fit the queue's schema.", errors, "invalid_extraction_evaluation");
    return this.settings.setExtractionEvaluation(queue.id, queue.organizationId, input.documentConfidence, input.fields);
  }
}
