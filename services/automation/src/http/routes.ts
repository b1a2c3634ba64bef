import { type AccessTokenVerifier, authenticate, callerOf, MethodNotAllowedError, parseInput } from "@docex/kit";
import type { Request, RequestHandler, Router } from "express";
import type { AutomationRules } from "../domain/automation-rules.js";
import type { Actor } from "../domain/queue-access.js";
import type { QueueAutomation } from "../domain/queue-automation.js";
import type { RuleKind, SwitchName } from "../domain/records.js";
import { extractionEvaluationDto, paginationDto, queueDto, ruleDto } from "./dto.js";
import { createRuleBody, extractionEvaluationBody, listQuery, orderBody, patchRuleBody, switchBody } from "./schemas.js";

const API = "/api/v2";

/** Where each kind of rule lives under a queue (the spec's paths). */
export const RULE_PATHS: Readonly<Record<RuleKind, string>> = {
  accounting: "accounting-automation-rules",
  approval: "approval-automation",
};

const SWITCH_PATHS: ReadonlyArray<[string, SwitchName]> = [
  ["accounting-automation", "accounting_automation"],
  ["automation-rules", "automation_rules"],
  ["extraction-evaluation", "extraction_evaluation"],
];

function actorOf(req: Request): Actor {
  return { userId: callerOf(req).userId, requestId: req.requestId };
}

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

function onlyMethods(...allowed: string[]): RequestHandler {
  return (_req, res, next) => {
    res.setHeader("allow", allowed.join(", "));
    next(new MethodNotAllowedError(allowed));
  };
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every route needs a verified token. */
export function automationRoutes(
  domain: { queues: QueueAutomation; rules: AutomationRules },
  verifier: AccessTokenVerifier,
): (router: Router) => void {
  const { queues, rules } = domain;
  const signedIn = authenticate(verifier);
  return (router) => {
    for (const [path, name] of SWITCH_PATHS) {
      router.patch(`${API}/queues/:queue_id/${path}`, signedIn, async (req, res) => {
        const body = parseInput(switchBody, req.body);
        res.json({ data: queueDto(await queues.setSwitch(actorOf(req), param(req, "queue_id"), name, body.status)) });
      });
    }

    router.put(`${API}/queues/:queue_id/extraction-evaluation`, signedIn, async (req, res) => {
      const body = parseInput(extractionEvaluationBody, req.body);
      const settings = await queues.setExtractionEvaluation(actorOf(req), param(req, "queue_id"), {
        documentConfidence: body.document_confidence,
        fields: body.fields,
      });
      res.json({ data: extractionEvaluationDto(settings) });
    });

    for (const kind of ["accounting", "approval"] as const) {
      const base = `${API}/queues/:queue_id/${RULE_PATHS[kind]}`;
      const createBody = createRuleBody(kind);
      const patchBody = patchRuleBody(kind);

      router.post(base, signedIn, async (req, res) => {
        const body = parseInput(createBody, req.body);
        const rule = await rules.create(actorOf(req), param(req, "queue_id"), kind, body);
        res
          .status(201)
          .location(`${API}/queues/${rule.queueId}/${RULE_PATHS[kind]}/${rule.id}`)
          .json({ data: ruleDto(rule) });
      });

      router.get(base, signedIn, async (req, res) => {
        const query = parseInput(listQuery, req.query, "query");
        const page = await rules.list(actorOf(req), param(req, "queue_id"), kind, query.page, query.page_size);
        res.json({ data: page.items.map(ruleDto), pagination: paginationDto(page) });
      });

      router.put(`${base}/order`, signedIn, async (req, res) => {
        const body = parseInput(orderBody, req.body);
        const ordered = await rules.reorder(actorOf(req), param(req, "queue_id"), kind, body.rule_ids);
        res.json({ data: ordered.map(ruleDto) });
      });

      router.patch(`${base}/:rule_id`, signedIn, async (req, res) => {
        const body = parseInput(patchBody, req.body);
        const rule = await rules.update(actorOf(req), param(req, "queue_id"), kind, param(req, "rule_id"), body);
        res.json({ data: ruleDto(rule) });
      });

      router.delete(`${base}/:rule_id`, signedIn, async (req, res) => {
        await rules.delete(actorOf(req), param(req, "queue_id"), kind, param(req, "rule_id"));
        res.status(204).end();
      });

      router.all(base, onlyMethods("GET", "POST"));
      router.all(`${base}/order`, onlyMethods("PUT"));
      router.all(`${base}/:rule_id`, onlyMethods("PATCH", "DELETE"));
    }

    for (const [path] of SWITCH_PATHS)
      router.all(`${API}/queues/:queue_id/${path}`, onlyMethods(...(path === "extraction-evaluation" ? ["PATCH", "PUT"] : ["PATCH"])));
  };
}
