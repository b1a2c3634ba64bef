import createClient from "openapi-fetch";
import type { paths } from "../generated/api.ts";
import type { Session } from "./session.ts";
import type { DocumentStatus, Problem } from "./types.ts";

/**
 * Routes of API.md the app uses before they are in the OpenAPI snapshot (web/openapi.json): typed here from API.md,
 * and dropped from this list once `npm run openapi -w @docex/web` brings them in. The app works without them.
 */
interface PendingPaths {
  "/api/v2/queues/{queue_id}/document-counts": {
    get: {
      parameters: { query?: never; header?: never; path: { queue_id: string }; cookie?: never };
      requestBody?: never;
      responses: {
        200: { headers: Record<string, unknown>; content: { "application/json": { data: Partial<Record<DocumentStatus, number>> } } };
        404: { headers: Record<string, unknown>; content: { "application/problem+json": Problem } };
      };
    };
  };
}

export type ApiPaths = paths & PendingPaths;

/** The typed client of docex's public API, every call with the session's token (refreshed quietly on a 401). */
export function createApiClient(session: Session, baseUrl = "") {
  return createClient<ApiPaths>({ baseUrl, fetch: (request) => session.authorizedFetch(request) });
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The problem of a failed call; a network failure or a non-problem answer becomes one with its status. */
export function problemOf(error: unknown, status: number): Problem {
  if (error && typeof error === "object" && "status" in error) return error as Problem;
  return { type: "about:blank", title: "Request failed", status, detail: "" } as Problem;
}
