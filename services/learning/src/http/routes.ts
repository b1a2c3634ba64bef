import { type AccessTokenVerifier, actorOf, authenticate } from "@docex/kit/auth";
import { ApiDescription } from "@docex/kit/http";
import type { Router } from "express";
import type { z } from "zod";
import type { FeedbackIntake } from "../domain/feedback.js";
import type { RelearnInput } from "../domain/relearn-instruction.js";
import { learnBody, relearnBody } from "./schemas.js";

const API = "/api/v2";
const TAGS = ["Relearning"];
const DOCUMENT_ID = { document_id: "UUID of the document" };
const QUEUE_ID = { queue_id: "UUID or humanized id of the queue" };
/** Learning needs what editing the document needs; what the caller may not see is 404, what they see but may not edit is 403. */
const PROBLEMS = [403, 404, 502, 503, 504];

function relearnInput(body: z.output<typeof relearnBody>): RelearnInput {
  return {
    supplier: { taxId: body.tax_id, registerId: body.register_id, name: body.name },
    fieldKey: body.field_key,
    value: body.value,
  };
}

export interface LearningHttp {
  /** The operations below, published at GET /openapi.json. */
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Thin routes: parse with the schema, call the domain, answer 204. Every route needs a verified token. */
export function learningHttp(feedback: FeedbackIntake, verifier: AccessTokenVerifier): LearningHttp {
  const api = new ApiDescription("learning");
  const signedIn = authenticate(verifier);

  const routes = (router: Router) => {
    api.route(
      router,
      {
        method: "post",
        path: `${API}/documents/{document_id}/learn`,
        operationId: "learnFromDocument",
        summary: "Feed a document's corrected annotations back for learning",
        description:
          "Keys must be fields of the queue's annotation schema. The values are remembered for the document's supplier and " +
          "fill fields the AI leaves empty on its later documents; the feedback is also published as learning.feedback.",
        tags: TAGS,
        params: DOCUMENT_ID,
        body: learnBody,
        responses: { 204: { description: "Learned" } },
        problems: PROBLEMS,
      },
      signedIn,
      async ({ body, params }, req, res) => {
        await feedback.learn(actorOf(req), params.document_id ?? "", {
          annotations: body.annotations,
          lineItemsVisibility: body.line_items_visibility ?? null,
          taxDetailVisibility: body.tax_detail_visibility ?? null,
        });
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/documents/{document_id}/relearn`,
        operationId: "relearnForDocument",
        summary: "Make the document's queue fill a field for a supplier, or forget it",
        description:
          "Scoped to the queue the document is in. The supplier is identified by tax_id, else register_id, else name; " +
          "a non-null value pins it for field_key, null forgets it.",
        tags: TAGS,
        params: DOCUMENT_ID,
        body: relearnBody,
        responses: { 204: { description: "Relearned" } },
        problems: PROBLEMS,
      },
      signedIn,
      async ({ body, params }, req, res) => {
        await feedback.relearnForDocument(actorOf(req), params.document_id ?? "", relearnInput(body));
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${API}/queues/{queue_id}/relearn`,
        operationId: "relearnForQueue",
        summary: "Make the queue fill a field for a supplier, or forget it",
        description:
          "The supplier is identified by tax_id, else register_id, else name; a non-null value pins it for field_key, null forgets it.",
        tags: TAGS,
        params: QUEUE_ID,
        body: relearnBody,
        responses: { 204: { description: "Relearned" } },
        problems: PROBLEMS,
      },
      signedIn,
      async ({ body, params }, req, res) => {
        await feedback.relearnForQueue(actorOf(req), params.queue_id ?? "", relearnInput(body));
        res.status(204).end();
      },
    );

    api.refuseOtherMethods(router);
  };

  return { api, routes };
}
