import createClient from "openapi-fetch";
import type { paths } from "../generated/api.ts";
import type { Session } from "./session.ts";
import type { Problem } from "./types.ts";

export type ApiPaths = paths;

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
