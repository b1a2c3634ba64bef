import { isDeepStrictEqual } from "node:util";
import { type ConfigurationResource, createEvent, type DocexEvent, type EventData } from "@docex/events";
import type { Actor } from "./queue-access.js";
import type { QueueRecord, QueueSettings, Rule, SwitchName } from "./records.js";

type Change = EventData<"configuration.changed">["change"];

export interface ConfigurationChange {
  resource: ConfigurationResource;
  /** The rule's id; null for a queue-wide setting and for a new order of the queue's rules. */
  resourceId: string | null;
  change: Change;
  previous: unknown;
  current: unknown;
}

/**
 * `configuration.changed` for a change the actor made to a queue's automation, to be written to the outbox in the
 * transaction of the change. None when the change left everything as it was (a switch set to the value it had, a
 * rule patched with its own values, the same order again): the audit log shows changes, not requests.
 */
export function configurationChanged(actor: Actor, queue: QueueRecord, change: ConfigurationChange): DocexEvent<"configuration.changed">[] {
  if (isDeepStrictEqual(change.previous, change.current)) return [];
  return [
    createEvent("configuration.changed", {
      organization_id: queue.organizationId,
      actor_user_id: actor.userId,
      request_id: actor.requestId,
      data: {
        resource: change.resource,
        resource_id: change.resourceId,
        queue_id: queue.id,
        change: change.change,
        previous: change.previous ?? null,
        current: change.current ?? null,
      },
    }),
  ];
}

/** What configuration.changed shows of a switch; extraction evaluation shows its thresholds with it. */
export function switchState(settings: QueueSettings, name: SwitchName) {
  switch (name) {
    case "accounting_automation":
      return { status: settings.accountingAutomation };
    case "automation_rules":
      return { status: settings.automationRules };
    case "extraction_evaluation":
      return extractionEvaluationState(settings);
  }
}

export function extractionEvaluationState(settings: QueueSettings) {
  const { status, documentConfidence, fields } = settings.extractionEvaluation;
  return { status, document_confidence: documentConfidence, fields };
}

/** A rule as configuration.changed shows it: what it does and where it runs, without its timestamps. */
export function ruleState(rule: Rule) {
  return { name: rule.name, action: rule.action, params: rule.params, conditions: rule.conditions, position: rule.position };
}
