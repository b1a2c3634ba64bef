import { type AccessTokenVerifier, authenticate, callerOf, MethodNotAllowedError, parseInput } from "@docex/kit";
import type { Request, Response, Router } from "express";
import type { FeedbackIntake } from "../domain/feedback.js";
import type { Actor } from "../domain/records.js";
import type { RelearnInput } from "../domain/relearn-instruction.js";
import { learnBody, relearnBody } from "./schemas.js";

const API = "/api/v2";

function actorOf(req: Request): Actor {
  return { userId: callerOf(req).userId, requestId: req.requestId };
}

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

function relearnInput(body: unknown): RelearnInput {
  const parsed = parseInput(relearnBody, body);
  return {
    supplier: { taxId: parsed.tax_id, registerId: parsed.register_id, name: parsed.name },
    fieldKey: parsed.field_key,
    value: parsed.value,
  };
}

const noContent = (res: Response) => res.status(204).end();

/** Thin routes: parse with the schema, call the domain, answer 204. Every route needs a verified token. */
export function learningRoutes(feedback: FeedbackIntake, verifier: AccessTokenVerifier): (router: Router) => void {
  const signedIn = authenticate(verifier);
  return (router) => {
    router.post(`${API}/documents/:document_id/learn`, signedIn, async (req, res) => {
      const body = parseInput(learnBody, req.body);
      await feedback.learn(actorOf(req), param(req, "document_id"), {
        annotations: body.annotations,
        lineItemsVisibility: body.line_items_visibility ?? null,
        taxDetailVisibility: body.tax_detail_visibility ?? null,
      });
      noContent(res);
    });

    router.post(`${API}/documents/:document_id/relearn`, signedIn, async (req, res) => {
      await feedback.relearnForDocument(actorOf(req), param(req, "document_id"), relearnInput(req.body));
      noContent(res);
    });

    router.post(`${API}/queues/:queue_id/relearn`, signedIn, async (req, res) => {
      await feedback.relearnForQueue(actorOf(req), param(req, "queue_id"), relearnInput(req.body));
      noContent(res);
    });

    for (const path of [
      `${API}/documents/:document_id/learn`,
      `${API}/documents/:document_id/relearn`,
      `${API}/queues/:queue_id/relearn`,
    ]) {
      router.all(path, (_req, res) => {
        res.setHeader("allow", "POST");
        throw new MethodNotAllowedError(["POST"]);
      });
    }
  };
}
