import { type AccessTokenVerifier, actorOf, authenticate } from "@docex/kit/auth";
import { ApiDescription, type BodyLimitRule, dataOf, pageBody, pageOf } from "@docex/kit/http";
import type { RequestHandler, Router } from "express";
import { z } from "zod";
import type { RegisterCatalog } from "../domain/register-catalog.js";
import { tooManyItems } from "../domain/register-errors.js";
import { MAX_ITEMS_PER_UPLOAD, type RegisterUploads } from "../domain/uploads.js";
import { itemDto, registerDto, registerItemSchema, registerSchema } from "./dto.js";
import { claimedItemCount, itemsQuery, uploadBody, uploadEntriesOf } from "./schemas.js";

const API = "/api/v2";
const TAGS = ["Registers"];

/** API.md "Conventions": POST /registers takes bodies up to 50 MiB, and only with a valid token (checked before the body is read). */
export function registerBodyLimits(verifier: AccessTokenVerifier): BodyLimitRule[] {
  return [{ method: "POST", path: /^\/api\/v2\/registers\/?$/, limit: "50mb", verifier }];
}

/** Counted before item-by-item validation, so an oversized upload is refused without that work. */
const refuseOversizedUploads: RequestHandler = (req, _res, next) => {
  const claimed = claimedItemCount(req.body);
  next(claimed > MAX_ITEMS_PER_UPLOAD ? tooManyItems(claimed, MAX_ITEMS_PER_UPLOAD) : undefined);
};

/** Thin routes: parse with the schema, call the domain, shape the answer. Every route needs a verified token. */
export function registerHttp(
  domain: { uploads: RegisterUploads; catalog: RegisterCatalog },
  verifier: AccessTokenVerifier,
): { api: ApiDescription; routes: (router: Router) => void } {
  const { uploads, catalog } = domain;
  const signedIn = authenticate(verifier);
  const api = new ApiDescription("register");
  const routes = (router: Router) => {
    api.route(
      router,
      {
        method: "post",
        path: `${API}/registers`,
        operationId: "uploadRegisters",
        summary: "Upload registers (replace, append or upsert), all in one transaction",
        description:
          "A register is identified by (queue, name) and created on first upload. `replace` swaps all items atomically, " +
          "`append` adds (a duplicate value is 409 and nothing is written), `upsert` inserts or updates by value. " +
          `At most ${MAX_ITEMS_PER_UPLOAD} items per request (else 413). The answer lists the registers the upload touched; ` +
          "Location points at the first one's items.",
        tags: TAGS,
        body: uploadBody,
        responses: {
          201: {
            description: "Uploaded",
            schema: dataOf(z.array(registerSchema)),
            headers: { Location: "The items of the first register uploaded" },
          },
        },
        problems: [403, 404, 409],
      },
      signedIn,
      refuseOversizedUploads,
      async ({ body }, req, res) => {
        const registers = await uploads.upload(actorOf(req), uploadEntriesOf(body));
        res
          .status(201)
          .location(`${API}/registers/${registers[0]!.id}/items`)
          .json({ data: registers.map(registerDto) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/queues/{queue_id}/registers`,
        operationId: "listQueueRegisters",
        summary: "List a queue's registers",
        tags: TAGS,
        params: { queue_id: "UUID or humanized id of the queue" },
        // A list without filters: any query parameter is a 400 naming it (API.md), not silently dropped.
        query: z.strictObject({}),
        responses: { 200: { description: "The queue's registers", schema: dataOf(z.array(registerSchema)) } },
        problems: [404],
      },
      signedIn,
      async ({ params }, req, res) => {
        const registers = await catalog.registersOfQueue(actorOf(req), params.queue_id ?? "");
        res.json({ data: registers.map(registerDto) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/registers/{register_id}/items`,
        operationId: "listRegisterItems",
        summary: "List or search a register's items",
        description: "`q` matches value, label, name, register_id and tax_id, case-insensitively.",
        tags: TAGS,
        params: { register_id: "UUID of the register" },
        query: itemsQuery,
        responses: { 200: { description: "A page of items", schema: pageOf(registerItemSchema) } },
        problems: [404],
      },
      signedIn,
      async ({ params, query }, req, res) => {
        const page = await catalog.items(actorOf(req), params.register_id ?? "", {
          page: query.page,
          pageSize: query.page_size,
          search: query.q,
        });
        res.json(pageBody(page.items, itemDto, page));
      },
    );
  };
  return { api, routes };
}
