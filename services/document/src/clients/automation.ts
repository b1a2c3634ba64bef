import { UpstreamError } from "@docex/kit/errors";
import type { GrpcIdentity } from "@docex/kit/grpc";
import type { Metrics } from "@docex/kit/metrics";
import {
  annotationSchemaJson,
  annotationsReaderJson,
  approvalRouteJson,
  createAutomationClient,
  evaluationFieldsJson,
  readJsonText,
  toJsonText,
} from "@docex/protos";
import type { QueueSwitches, Switch } from "@docex/queue-dto";
import { z } from "zod";
import type { ApprovalRouteSource, AssignedApprovers } from "../domain/approval.js";
import type { AutomationSettingsSource } from "../domain/automation-switches.js";

const switchOf = (value: string): Switch => (value === "enabled" ? "enabled" : "disabled");

const approversSchema = z.array(z.guid()).max(100);

/** A person waits for the route (register lookups of in_register conditions included), not a start-up seed. */
const ROUTE_DEADLINE_MS = 2_000;

function assignedFrom(answer: { approvers: string[]; approval_route_json: string }): AssignedApprovers {
  const approvers = approversSchema.safeParse(answer.approvers);
  const route = answer.approval_route_json ? approvalRouteJson.safeParse(JSON.parse(answer.approval_route_json)) : undefined;
  // Automation checks routes when rules are written; an answer that is not one is a broken dependency, not the user's doing.
  if (!approvers.success || (route && !route.success)) {
    throw new UpstreamError(502, "The automation service answered an approval route that is not one.", "upstream_failed");
  }
  const lower = (ids: string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];
  return {
    approvers: lower(approvers.data),
    ...(route?.success
      ? {
          route: {
            stages: route.data.stages.map((stage) => ({ approverIds: lower(stage.approver_ids), minApprovals: stage.min_approvals ?? 1 })),
            stage: route.data.stage,
          },
        }
      : {}),
  };
}

/**
 * The automation service: GetQueueAutomation for the one-time seed of the switch projection at start (no queue read
 * calls it), and PlanApprovalRoute when a person moves a document to in_approval. A failure throws: the seed asks
 * again rather than record a guess, and the move answers 503 rather than go to approval without its approvers.
 */
export function automationClient(
  address: string,
  options: { identity: GrpcIdentity; metrics?: Metrics; deadlineMs: number },
): AutomationSettingsSource & ApprovalRouteSource & { close(): void } {
  // The seed runs at start, often before automation is up, and asks again until it answers: a breaker would only
  // open for it. The route, asked on a person's request, has one: an automation that keeps failing answers at once.
  const seedClient = createAutomationClient(address, options);
  const client = createAutomationClient(address, { ...options, breaker: { volumeThreshold: 5, resetTimeoutMs: 10_000 } });
  return {
    async settingsOf(queueId, ctx): Promise<QueueSwitches> {
      const answer = await seedClient.getQueueAutomation({ queue_id: queueId }, ctx);
      return {
        accountingAutomation: switchOf(answer.accounting_automation),
        automationRules: switchOf(answer.automation_rules),
        extractionEvaluation: {
          status: switchOf(answer.extraction_evaluation_status),
          documentConfidence: answer.document_confidence || null,
          fields: readJsonText(evaluationFieldsJson, [], answer.fields_json, "fields_json"),
        },
      };
    },
    async approversFor(queue, document, ctx) {
      const answer = await client.planApprovalRoute(
        {
          organization_id: queue.organizationId,
          queue_id: queue.id,
          document_id: document.id,
          annotations_json: toJsonText(annotationsReaderJson, document.annotations),
          annotation_schema_json: toJsonText(annotationSchemaJson, queue.annotationSchema),
        },
        { ...ctx, deadlineMs: ROUTE_DEADLINE_MS },
      );
      return assignedFrom(answer);
    },
    close: () => {
      seedClient.close();
      client.close();
    },
  };
}
