import { type AccessTokenVerifier, actorOf, authenticate } from "@docex/kit/auth";
import { ApiDescription, dataOf } from "@docex/kit/http";
import type { Router } from "express";
import { z } from "zod";
import { DEFAULT_PAGE_WIDTH, type DocumentPages } from "../domain/document-pages.js";
import { MAX_IMAGE_WIDTH } from "../engine/pages.js";

const API = "/api/v2";
const TAGS = ["Documents"];
const PARAMS = { document_id: "UUID of the document" };
const PAGE_PARAMS = { ...PARAMS, page: "The page, from 1" };
/** 404: an unknown document, one the caller may not read, or a page past the last; 422: a file whose pages cannot be read. */
const PROBLEMS = [404, 422, 502, 503, 504];

const box = z
  .tuple([z.number(), z.number(), z.number(), z.number()])
  .describe("[left, top, right, bottom]: fractions (0..1) of the page's width and height from its top-left corner");
const pageSchema = z.object({
  page: z.number().int().min(1),
  width: z.number().describe("points (1/72 inch); an image's pixels count as points"),
  height: z.number().describe("points"),
});
const wordSchema = z.object({ text: z.string(), box });
/** No parameters: an unknown one is 400, as on every list. */
const noQuery = z.object({});
const imageQuery = z.object({
  width: z.coerce
    .number()
    .int()
    .min(16)
    .max(MAX_IMAGE_WIDTH)
    .optional()
    .describe(`Pixels, default ${DEFAULT_PAGE_WIDTH}, at most ${MAX_IMAGE_WIDTH} (more is 400)`),
});

/** The pages API's routes: thin, each parses, asks DocumentPages, shapes the answer. Every route needs a verified token. */
export function pagesHttp(pages: DocumentPages, verifier: AccessTokenVerifier): { api: ApiDescription; routes: (router: Router) => void } {
  const api = new ApiDescription("extraction");
  const signedIn = authenticate(verifier);

  const routes = (router: Router) => {
    api.route(
      router,
      {
        method: "get",
        path: `${API}/documents/{document_id}/pages`,
        operationId: "listDocumentPages",
        summary: "List a document's pages with their sizes",
        description:
          "The pages of the document's file, in points; `[]` for a document without a file or without pages (an XML " +
          "e-invoice). At most 200 pages are listed. Same access as reading the document.",
        tags: TAGS,
        params: PARAMS,
        query: noQuery,
        responses: { 200: { description: "The pages", schema: dataOf(z.array(pageSchema)) } },
        problems: PROBLEMS,
      },
      signedIn,
      async ({ params }, req, res) => {
        res.json({ data: await pages.list(actorOf(req), params.document_id ?? "") });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/documents/{document_id}/pages/{page}`,
        operationId: "getDocumentPageImage",
        summary: "A page of a document as an image",
        description:
          `The page drawn as a PNG \`width\` pixels wide (default ${DEFAULT_PAGE_WIDTH}, at most ${MAX_IMAGE_WIDTH}: more is 400), ` +
          "narrower where the page is more than four times as tall as wide. Drawn once per width and kept; `ETag` names " +
          "the image and `If-None-Match` with it answers 304. 404 `page_not_found` past the last page; 422 " +
          "`page_unreadable` for a file whose page cannot be drawn within the readers' time and memory. Same access as " +
          "reading the document.",
        tags: TAGS,
        params: PAGE_PARAMS,
        query: imageQuery,
        responses: {
          200: {
            description: "The page's image",
            binary: ["image/png"],
            headers: {
              ETag: "Names the image (a hash of its bytes), quoted",
              "Cache-Control": "`private, max-age=86400`: the page of a document's file never changes",
            },
          },
          304: { description: "`If-None-Match` names the image's ETag" },
        },
        problems: PROBLEMS,
      },
      signedIn,
      async ({ params, query }, req, res) => {
        const answer = await pages.image(
          actorOf(req),
          params.document_id ?? "",
          params.page ?? "",
          query.width ?? DEFAULT_PAGE_WIDTH,
          req.headers["if-none-match"],
        );
        res.setHeader("ETag", answer.etag);
        // A document's file, and so its pages, never change; the answer is the caller's alone.
        res.setHeader("Cache-Control", "private, max-age=86400");
        res.setHeader("X-Content-Type-Options", "nosniff");
        if (answer.notModified) {
          res.status(304).end();
          return;
        }
        res.status(200).type(answer.contentType).setHeader("Content-Length", String(answer.bytes.length));
        res.end(answer.bytes);
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${API}/documents/{document_id}/pages/{page}/words`,
        operationId: "listDocumentPageWords",
        summary: "The words of a page with their boxes",
        description:
          "The words of the page from its text layer, or from OCR where it has none, each with its box in the fractions " +
          "of an annotation's `position`. 404 `page_not_found` past the last page. Same access as reading the document.",
        tags: TAGS,
        params: PAGE_PARAMS,
        query: noQuery,
        responses: { 200: { description: "The words", schema: dataOf(z.array(wordSchema)) } },
        problems: PROBLEMS,
      },
      signedIn,
      async ({ params }, req, res) => {
        res.json({ data: await pages.words(actorOf(req), params.document_id ?? "", params.page ?? "") });
      },
    );

    api.refuseOtherMethods(router);
  };

  return { api, routes };
}
