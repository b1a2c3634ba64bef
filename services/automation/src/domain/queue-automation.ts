import { locateKey } from "@docex/annotations";
import type { ConfigurationResource } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import { type FieldError, ValidationError } from "@docex/kit/errors";
import type { SettingsStore } from "../store/settings-store.js";
import { configurationChanged, extractionEvaluationState, switchState } from "./configuration-changed.js";
import type { Actor, QueueAccess } from "./queue-access.js";
import type { ExtractionEvaluationField, QueueRecord, QueueSettings, Switch, SwitchName } from "./records.js";

/** A queue with the automation settings its DTO shows. */
export interface QueueView {
  queue: QueueRecord;
  settings: QueueSettings;
}

export interface QueueAutomationDependencies {
  sql: UnitOfWork;
  access: QueueAccess;
  settings: SettingsStore;
  events: OutboxEvents;
}

/**
 * The switches and the extraction evaluation settings of a queue. Each change is announced as
 * configuration.changed, with the settings before and after, in the transaction that makes it.
 */
export class QueueAutomation {
  constructor(private readonly deps: QueueAutomationDependencies) {}

  /**
   * Turns one switch. Extraction evaluation may be enabled before its thresholds are set; until PUT
   * extraction-evaluation sets document_confidence, no document meets them.
   */
  async setSwitch(actor: Actor, queueRef: string, name: SwitchName, value: Switch): Promise<QueueView> {
    const queue = await this.deps.access.manageable(actor, queueRef);
    const settings = await this.change(
      actor,
      queue,
      name,
      (state) => switchState(state, name),
      (tx) => this.deps.settings.setSwitch(tx, queue.id, name, value),
    );
    return { queue, settings };
  }

  /** Replaces the thresholds; the switch stays as it is. Every key must be a field or column of the queue's schema. */
  async setExtractionEvaluation(
    actor: Actor,
    queueRef: string,
    input: { documentConfidence: number; fields: ExtractionEvaluationField[] },
  ): Promise<QueueSettings> {
    const queue = await this.deps.access.manageable(actor, queueRef);
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
    return this.change(actor, queue, "extraction_evaluation", extractionEvaluationState, (tx) =>
      this.deps.settings.setExtractionEvaluation(tx, queue.id, input.documentConfidence, input.fields),
    );
  }

  /** Locks the queue's settings, writes, and announces what `shown` shows of them before and after, in one transaction. */
  private change(
    actor: Actor,
    queue: QueueRecord,
    resource: ConfigurationResource,
    shown: (settings: QueueSettings) => unknown,
    write: (tx: Tx) => Promise<QueueSettings>,
  ): Promise<QueueSettings> {
    const { sql, settings, events } = this.deps;
    return sql.transaction(async (tx) => {
      const previous = await settings.lock(tx, queue.id, queue.organizationId);
      const current = await write(tx);
      await events.add(
        tx,
        ...configurationChanged(actor, queue, {
          resource,
          resourceId: null,
          change: "updated",
          previous: shown(previous),
          current: shown(current),
        }),
      );
      return current;
    });
  }
}
