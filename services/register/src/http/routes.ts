import { authenticate, type BodyLimitRule, callerOf, parseInput, type TokenVerifier } from "@docex/kit";
import type { Request, Router } from "express";
import type { Actor } from "../domain/access.js";
import type { RegisterCatalog } from "../domain/register-catalog.js";
import { tooManyItems } from "../domain/register-errors.js";
import { MAX_ITEMS_PER_UPLOAD, type RegisterUploads } from "../domain/uploads.js";
import { itemDto, paginationDto, registerDto } from "./dto.js";
import { claimedItemCount, itemsQuery, uploadBody, uploadEntriesOf } from "./schemas.js";

const API = "/api/v2";

/** API.md "Conventions": POST /registers takes bodies up to 50 MiB. */
export const REGISTER_BODY_LIMITS: BodyLimitRule[] = [{ method: "POST", path: /^\/api\/v2\/registers\/?$/, limit: "50mb" }];

function actorOf(req: Request): Actor {
  return { userId: callerOf(req).userId, requestId: req.requestId };
}

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every route needs a verified token. */
export function registerRoutes(
  domain: { uploads: RegisterUploads; catalog: RegisterCatalog },
  verifier: TokenVerifier,
): (router: Router) => void {
  const { uploads, catalog } = domain;
  const signedIn = authenticate(verifier);
  return (router) => {
    /**
     * 201 with `Location` of the first register's items (the only address a register has), and the
     * registers the upload touched as `data`, so that a client uploading several learns all their ids.
     */
    router.post(`${API}/registers`, signedIn, async (req, res) => {
      // Counted before item-by-item validation, so an oversized upload is refused without that work.
      const claimed = claimedItemCount(req.body);
      if (claimed > MAX_ITEMS_PER_UPLOAD) throw tooManyItems(claimed, MAX_ITEMS_PER_UPLOAD);
      const entries = uploadEntriesOf(parseInput(uploadBody, req.body));
      const registers = await uploads.upload(actorOf(req), entries);
      res
        .status(201)
        .location(`${API}/registers/${registers[0]!.id}/items`)
        .json({ data: registers.map(registerDto) });
    });

    router.get(`${API}/queues/:queue_id/registers`, signedIn, async (req, res) => {
      const registers = await catalog.registersOfQueue(actorOf(req), param(req, "queue_id"));
      res.json({ data: registers.map(registerDto) });
    });

    router.get(`${API}/registers/:register_id/items`, signedIn, async (req, res) => {
      const query = parseInput(itemsQuery, req.query, "query");
      const page = await catalog.items(actorOf(req), param(req, "register_id"), {
        page: query.page,
        pageSize: query.page_size,
        search: query.q,
      });
      res.json({ data: page.items.map(itemDto), pagination: paginationDto(page) });
    });
  };
}
