import type { GrpcIdentity, Metrics } from "@docex/kit";
import { createAutomationClient } from "@docex/protos";
import type { QueueSwitches, Switch } from "@docex/queue-dto";
import { z } from "zod";
import type { AutomationSettingsSource } from "../domain/automation-switches.js";

const fieldsSchema = z.array(z.object({ key: z.string(), min_confidence: z.number(), required: z.boolean() }));
const switchOf = (value: string): Switch => (value === "enabled" ? "enabled" : "disabled");

/**
 * Automation's GetQueueAutomation, asked only by the one-time seed of the switch projection at start; no queue read
 * calls it. A failure (or an answer this client cannot read) throws, so the seed asks again rather than record a
 * guess.
 */
export function automationSettingsSource(
  address: string,
  options: { identity: GrpcIdentity; metrics?: Metrics; deadlineMs: number },
): AutomationSettingsSource & { close(): void } {
  const client = createAutomationClient(address, options);
  return {
    async settingsOf(queueId, ctx): Promise<QueueSwitches> {
      const answer = await client.getQueueAutomation({ queue_id: queueId }, ctx);
      return {
        accountingAutomation: switchOf(answer.accounting_automation),
        automationRules: switchOf(answer.automation_rules),
        extractionEvaluation: {
          status: switchOf(answer.extraction_evaluation_status),
          documentConfidence: answer.document_confidence || null,
          fields: fieldsSchema.parse(JSON.parse(answer.fields_json || "[]")),
        },
      };
    },
    close: () => client.close(),
  };
}
