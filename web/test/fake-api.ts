import { createApiClient } from "../src/api/client.ts";
import { Session } from "../src/api/session.ts";
import type { Services } from "../src/context.ts";

export const BASE = "http://docex.test";

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

type Handler = (call: Call) => Response | Promise<Response>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json", ...headers },
  });

/** A token whose payload the app reads (sub); nothing verifies its signature here. */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${part({ alg: "ES256", typ: "JWT" })}.${part(claims)}.signature`;
}

export function tokens(sub: string, refresh = "refresh-1") {
  return {
    data: { access_token: fakeJwt({ sub }), token_type: "Bearer", expires_in: 900, refresh_token: refresh, refresh_expires_in: 2_592_000 },
  };
}

/**
 * The API as a table of handlers by "METHOD /path" (the path without /api/v2 and without the query), for unit tests
 * of the app's modules; every call is recorded. An unlisted route is a 404.
 */
export class FakeApi {
  readonly calls: Call[] = [];

  constructor(private readonly routes: Record<string, Handler>) {}

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(new URL(String(input), BASE), init);
    const url = new URL(request.url);
    const text = await request.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {}
    const call = {
      method: request.method,
      path: url.pathname.replace(/^\/api\/v2/, ""),
      query: url.searchParams,
      headers: request.headers,
      body,
    };
    this.calls.push(call);
    const handler = this.routes[`${call.method} ${call.path}`];
    return handler ? handler(call) : json(404, { status: 404, code: "route_not_found", title: "Not Found", detail: "", errors: [] });
  };

  callsTo(method: string, path: string): Call[] {
    return this.calls.filter((call) => call.method === method && call.path === path);
  }
}

/** The app's services over a fake API of `routes` (and a login), signed in as `sub`. */
export async function signedIn(routes: Record<string, Handler>, sub: string): Promise<{ api: FakeApi; services: Services }> {
  const api = new FakeApi({ "POST /auth/login": () => json(200, tokens(sub)), ...routes });
  const session = new Session(api.fetch, sessionStorage, localStorage);
  await session.signIn("person@example.test", "password 1234");
  return { api, services: { session, api: createApiClient(session, BASE) } };
}
