import { type AccessTokenVerifier, actorOf, authenticate } from "@docex/kit/auth";
import { ApiDescription, dataOf, pageBody, pageOf } from "@docex/kit/http";
import type { Request, Router } from "express";
import { z } from "zod";
import type { AutomationRules } from "../domain/automation-rules.js";
import type { QueueAutomation } from "../domain/queue-automation.js";
import type { RuleKind, SwitchName } from "../domain/records.js";
import {
  extractionEvaluationDto,
  extractionEvaluationSchema,
  queueDto,
  queueWithAnnotationSchemaSchema,
  ruleDto,
  ruleSchemas,
} from "./dto.js";
import { createRuleBody, extractionEvaluationBody, listQuery, orderBody, patchRuleBody, switchBody } from "./schemas.js";

const API = "/api/v2";
const TAGS = ["Queue automation"];

/** Where each kind of rule lives under a queue (the spec's paths). */
export const RULE_PATHS: Readonly<Record<RuleKind, string>> = {
  accounting: "accounting-automation-rules",
  approval: "approval-automation",
};

/** The path, the words and the operationId stem of each switch. */
const SWITCHES: ReadonlyArray<{ path: string; name: SwitchName; title: string; operation: string }> = [
  { path: "accounting-automation", name: "accounting_automation", title: "accounting automation", operation: "AccountingAutomation" },
  { path: "automation-rules", name: "automation_rules", title: "all automation rules", operation: "AutomationRules" },
  { path: "extraction-evaluation", name: "extraction_evaluation", title: "extraction evaluation", operation: "ExtractionEvaluation" },
];

const KIND_WORDS: Readonly<Record<RuleKind, { title: string; operation: string }>> = {
  accounting: { title: "accounting", operation: "Accounting" },
  approval: { title: "approval", operation: "Approval" },
};

/**
 * Every route finds the queue through the document service and asks membership about the caller, over gRPC:
 * either may be down (503) or slow (504).
 */
const UPSTREAM_PROBLEMS = [503, 504];

const QUEUE_ID = "The queue: UUID or humanized id";
const RULE_ID = "The automation rule's UUID";

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

/** The operations of the automation service and the router that serves them. */
export interface AutomationHttp {
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every route needs a verified token. */
export function automationRoutes(
  domain: { queues: QueueAutomation; rules: AutomationRules },
  verifier: AccessTokenVerifier,
): AutomationHttp {
  const { queues, rules } = domain;
  const signedIn = authenticate(verifier);
  const api = new ApiDescription("automation");
  const routes = (router: Router) => {
    for (const { path, name, title, operation } of SWITCHES) {
      api.route(
        router,
        {
          method: "patch",
          path: `${API}/queues/{queue_id}/${path}`,
          operationId: `set${operation}`,
          summary: `Turn ${title} on or off for a queue`,
          tags: TAGS,
          params: { queue_id: QUEUE_ID },
          body: switchBody,
          responses: {
            200: {
              description: "The queue with its switches, as GET /queues/{queue_id} shows it",
              schema: dataOf(queueWithAnnotationSchemaSchema),
            },
          },
          problems: [403, 404, ...UPSTREAM_PROBLEMS],
        },
        signedIn,
        async ({ body }, req, res) => {
          res.json({ data: queueDto(await queues.setSwitch(actorOf(req), param(req, "queue_id"), name, body.status)) });
        },
      );
    }

    api.route(
      router,
      {
        method: "put",
        path: `${API}/queues/{queue_id}/extraction-evaluation`,
        operationId: "configureExtractionEvaluation",
        summary: "Set the confidence thresholds that let a queue's documents skip manual validation",
        description: "Replaces the thresholds; the switch stays as it is. Every key must be a field or table column of the queue's schema.",
        tags: TAGS,
        params: { queue_id: QUEUE_ID },
        body: extractionEvaluationBody,
        responses: { 200: { description: "The queue's extraction evaluation", schema: dataOf(extractionEvaluationSchema) } },
        problems: [403, 404, ...UPSTREAM_PROBLEMS],
      },
      signedIn,
      async ({ body }, req, res) => {
        const settings = await queues.setExtractionEvaluation(actorOf(req), param(req, "queue_id"), {
          documentConfidence: body.document_confidence,
          fields: body.fields,
        });
        res.json({ data: extractionEvaluationDto(settings) });
      },
    );

    for (const kind of ["accounting", "approval"] as const) {
      const base = `${API}/queues/{queue_id}/${RULE_PATHS[kind]}`;
      const { title, operation } = KIND_WORDS[kind];
      const rule = ruleSchemas[kind];
      const ruleParams = { queue_id: QUEUE_ID, automation_rule_id: RULE_ID };

      api.route(
        router,
        {
          method: "post",
          path: base,
          operationId: `create${operation}AutomationRule`,
          summary: `Add an ${title} automation rule after the queue's others`,
          tags: TAGS,
          params: { queue_id: QUEUE_ID },
          body: createRuleBody(kind),
          responses: {
            201: {
              description: "The rule",
              schema: dataOf(rule),
              headers: { Location: `The new rule: \`${base}/{automation_rule_id}\`` },
            },
          },
          problems: [403, 404, 409, ...UPSTREAM_PROBLEMS],
        },
        signedIn,
        async ({ body }, req, res) => {
          const created = await rules.create(actorOf(req), param(req, "queue_id"), kind, body);
          res
            .status(201)
            .location(`${API}/queues/${created.queueId}/${RULE_PATHS[kind]}/${created.id}`)
            .json({ data: ruleDto(created) });
        },
      );

      api.route(
        router,
        {
          method: "get",
          path: base,
          operationId: `list${operation}AutomationRules`,
          summary: `List a queue's ${title} automation rules in the order they run`,
          tags: TAGS,
          params: { queue_id: QUEUE_ID },
          query: listQuery,
          responses: { 200: { description: "A page of rules", schema: pageOf(rule) } },
          problems: [404, ...UPSTREAM_PROBLEMS],
        },
        signedIn,
        async ({ query }, req, res) => {
          const page = await rules.list(actorOf(req), param(req, "queue_id"), kind, query.page, query.page_size);
          res.json(pageBody(page.items, ruleDto, page));
        },
      );

      api.route(
        router,
        {
          method: "put",
          path: `${base}/order`,
          operationId: `reorder${operation}AutomationRules`,
          summary: `Set the order in which a queue's ${title} automation rules run`,
          description: "`rule_ids` must list each of the queue's rules of this kind once; anything else is 400 and nothing moves.",
          tags: TAGS,
          params: { queue_id: QUEUE_ID },
          body: orderBody,
          responses: { 200: { description: "Every rule of this kind, in the new order", schema: dataOf(z.array(rule)) } },
          problems: [403, 404, ...UPSTREAM_PROBLEMS],
        },
        signedIn,
        async ({ body }, req, res) => {
          const ordered = await rules.reorder(actorOf(req), param(req, "queue_id"), kind, body.rule_ids);
          res.json({ data: ordered.map(ruleDto) });
        },
      );

      api.route(
        router,
        {
          method: "patch",
          path: `${base}/{automation_rule_id}`,
          operationId: `update${operation}AutomationRule`,
          summary: `Change an ${title} automation rule`,
          description: "Changes what is sent. A new action without params keeps the rule's params, which must then fit it.",
          tags: TAGS,
          params: ruleParams,
          body: patchRuleBody(kind),
          responses: { 200: { description: "The rule", schema: dataOf(rule) } },
          problems: [403, 404, ...UPSTREAM_PROBLEMS],
        },
        signedIn,
        async ({ body }, req, res) => {
          const updated = await rules.update(actorOf(req), param(req, "queue_id"), kind, param(req, "automation_rule_id"), body);
          res.json({ data: ruleDto(updated) });
        },
      );

      api.route(
        router,
        {
          method: "delete",
          path: `${base}/{automation_rule_id}`,
          operationId: `delete${operation}AutomationRule`,
          summary: `Delete an ${title} automation rule, closing the gap in the order`,
          tags: TAGS,
          params: ruleParams,
          responses: { 204: { description: "Deleted" } },
          problems: [403, 404, ...UPSTREAM_PROBLEMS],
        },
        signedIn,
        async (_input, req, res) => {
          await rules.delete(actorOf(req), param(req, "queue_id"), kind, param(req, "automation_rule_id"));
          res.status(204).end();
        },
      );
    }

    api.refuseOtherMethods(router);
  };
  return { api, routes };
}
