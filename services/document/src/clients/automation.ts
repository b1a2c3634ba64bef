import type { GrpcIdentity, Logger, Metrics } from "@docex/kit";
import { createAutomationClient } from "@docex/protos";
import { z } from "zod";

export type Switch = "enabled" | "disabled";

export interface ExtractionEvaluationField {
  key: string;
  min_confidence: number;
  required: boolean;
}

/** The automation part of QueueWithAnnotationSchemaDto. */
export interface QueueAutomation {
  accountingAutomation: Switch;
  automationRules: Switch;
  extractionEvaluation: { status: Switch; documentConfidence: number | null; fields: ExtractionEvaluationField[] };
}

/** What a queue shows while automation has never been set up for it, or cannot be asked. */
export const AUTOMATION_DEFAULTS: QueueAutomation = {
  accountingAutomation: "disabled",
  automationRules: "disabled",
  extractionEvaluation: { status: "disabled", documentConfidence: null, fields: [] },
};

export interface QueueAutomationSource {
  /** Never fails: an unavailable automation service shows the defaults. */
  settingsOf(queueId: string, ctx?: { requestId?: string }): Promise<QueueAutomation>;
  close(): void;
}

const fieldsSchema = z.array(z.object({ key: z.string(), min_confidence: z.number(), required: z.boolean() }));
const switchOf = (value: string): Switch => (value === "enabled" ? "enabled" : "disabled");

/**
 * The gRPC client of automation. A queue read must not wait on it: a short deadline, a breaker that
 * answers at once while automation is down, and the defaults whenever it does not answer.
 */
export function queueAutomationSource(
  address: string,
  options: { identity: GrpcIdentity; logger: Logger; metrics?: Metrics; deadlineMs: number },
): QueueAutomationSource {
  const client = createAutomationClient(address, {
    identity: options.identity,
    deadlineMs: options.deadlineMs,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    breaker: { resetTimeoutMs: 10_000, volumeThreshold: 3 },
  });
  return {
    async settingsOf(queueId, ctx) {
      try {
        const answer = await client.getQueueAutomation({ queue_id: queueId }, ctx?.requestId ? { requestId: ctx.requestId } : {});
        const fields = answer.fields_json ? fieldsSchema.safeParse(JSON.parse(answer.fields_json)) : undefined;
        if (fields && !fields.success)
          options.logger.warn({ queue_id: queueId }, "automation answered malformed fields_json; showing none");
        return {
          accountingAutomation: switchOf(answer.accounting_automation),
          automationRules: switchOf(answer.automation_rules),
          extractionEvaluation: {
            status: switchOf(answer.extraction_evaluation_status),
            documentConfidence: answer.document_confidence || null,
            fields: fields?.success ? fields.data : [],
          },
        };
      } catch (error) {
        options.logger.debug({ err: error, queue_id: queueId }, "automation did not answer; showing defaults");
        return AUTOMATION_DEFAULTS;
      }
    },
    close: () => client.close(),
  };
}
