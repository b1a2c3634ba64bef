import { authenticate, callerOf, parseInput, type TokenVerifier } from "@docex/kit";
import type { Request, Response, Router } from "express";
import type { Actor } from "../domain/access.js";
import type { Documents } from "../domain/documents.js";
import type { Hierarchy } from "../domain/hierarchy.js";
import { documentDto, paginationDto, queueDto, workspaceDto } from "./dto.js";
import {
  annotationsPatchBody,
  createQueueBody,
  createWorkspaceBody,
  documentListQuery,
  extractionBody,
  statusBody,
  uploadDocumentBody,
} from "./schemas.js";

const API = "/api/v2";

function actorOf(req: Request): Actor {
  return { userId: callerOf(req).userId, requestId: req.requestId };
}

function param(req: Request, name: string): string {
  return String(req.params[name] ?? "");
}

function created(res: Response, location: string, data: unknown): void {
  res.status(201).location(`${API}${location}`).json({ data });
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every route needs a verified token. */
export function documentRoutes(domain: { hierarchy: Hierarchy; documents: Documents }, verifier: TokenVerifier): (router: Router) => void {
  const { hierarchy, documents } = domain;
  const signedIn = authenticate(verifier);
  return (router) => {
    router.post(`${API}/workspaces`, signedIn, async (req, res) => {
      const body = parseInput(createWorkspaceBody, req.body);
      const workspace = await hierarchy.createWorkspace(actorOf(req), {
        organizationRef: body.organization_id,
        name: body.name,
        ...(body.humanized_id ? { humanizedId: body.humanized_id } : {}),
      });
      created(res, `/workspaces/${workspace.id}`, workspaceDto(workspace));
    });

    router.get(`${API}/workspaces/:workspace_id`, signedIn, async (req, res) => {
      res.json({ data: workspaceDto(await hierarchy.workspace(actorOf(req), param(req, "workspace_id"))) });
    });

    router.post(`${API}/queues`, signedIn, async (req, res) => {
      const body = parseInput(createQueueBody, req.body);
      const view = await hierarchy.createQueue(actorOf(req), {
        workspaceRef: body.workspace_id,
        name: body.name,
        ...(body.humanized_id ? { humanizedId: body.humanized_id } : {}),
        ...(body.annotation_schema ? { annotationSchema: body.annotation_schema } : {}),
      });
      created(res, `/queues/${view.queue.id}`, queueDto(view));
    });

    router.get(`${API}/queues/:queue_id`, signedIn, async (req, res) => {
      res.json({ data: queueDto(await hierarchy.queue(actorOf(req), param(req, "queue_id"))) });
    });

    router.post(`${API}/queues/:queue_id/documents`, signedIn, async (req, res) => {
      const body = parseInput(uploadDocumentBody, req.body);
      const document = await documents.upload(actorOf(req), param(req, "queue_id"), {
        fileName: body.file_name,
        annotations: body.annotations ?? [],
        confidence: body.confidence ?? null,
      });
      created(res, `/documents/${document.id}`, documentDto(document));
    });

    router.get(`${API}/queues/:queue_id/documents`, signedIn, async (req, res) => {
      const query = parseInput(documentListQuery, req.query, "query");
      const page = await documents.list(actorOf(req), param(req, "queue_id"), {
        ...(query.status.length ? { statuses: query.status } : {}),
        page: query.page,
        pageSize: query.page_size,
      });
      res.json({ data: page.items.map(documentDto), pagination: paginationDto(page) });
    });

    router.get(`${API}/documents/:document_id`, signedIn, async (req, res) => {
      res.json({ data: documentDto(await documents.get(actorOf(req), param(req, "document_id"))) });
    });

    router.post(`${API}/documents/:document_id/extraction`, signedIn, async (req, res) => {
      const body = parseInput(extractionBody, req.body);
      const document = await documents.recordExtraction(actorOf(req), param(req, "document_id"), body);
      res.json({ data: documentDto(document) });
    });

    router.patch(`${API}/documents/:document_id/annotations`, signedIn, async (req, res) => {
      const body = parseInput(annotationsPatchBody, req.body);
      res.json({ data: documentDto(await documents.editAnnotations(actorOf(req), param(req, "document_id"), body.annotations)) });
    });

    router.post(`${API}/documents/:document_id/status`, signedIn, async (req, res) => {
      const body = parseInput(statusBody, req.body);
      res.json({ data: documentDto(await documents.changeStatus(actorOf(req), param(req, "document_id"), body.status)) });
    });
  };
}
