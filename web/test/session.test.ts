import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../src/api/session.ts";
import { FakeApi, json, tokens } from "./fake-api.ts";

afterEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe("Session", () => {
  it("asks for the TOTP code when the account has one, sends it as x-totp, and keeps the trusted source for the next sign-in", async () => {
    const api = new FakeApi({
      "POST /auth/login": ({ headers }) => {
        if (headers.get("x-totp") === "123456") return json(200, { data: { ...tokens("user-1").data, otp_trusted_source: "trusted-1" } });
        if (headers.get("x-otp-trusted-source") === "trusted-1") return json(200, tokens("user-1"));
        return json(401, { status: 401, code: "totp_required", title: "Unauthorized", detail: "", errors: [] });
      },
    });
    const session = new Session(api.fetch);
    expect(await session.signIn("a@example.test", "password 1234")).toEqual({ kind: "totp_required" });
    expect(await session.signIn("a@example.test", "password 1234", "123456")).toEqual({ kind: "signed_in" });
    expect(session.claims?.sub).toBe("user-1");
    const again = new Session(api.fetch);
    expect(await again.signIn("A@example.test ", "password 1234")).toEqual({ kind: "signed_in" });
    expect(api.calls.at(-1)?.headers.get("x-otp-trusted-source")).toBe("trusted-1");
  });

  it("refreshes quietly on a 401 and repeats the request with the new token", async () => {
    let refreshed = false;
    const api = new FakeApi({
      "POST /auth/login": () => json(200, tokens("user-1", "refresh-1")),
      "POST /auth/refresh": ({ body }) => {
        expect(body).toEqual({ refresh_token: "refresh-1" });
        refreshed = true;
        return json(200, tokens("user-1", "refresh-2"));
      },
      "GET /organizations": () => (refreshed ? json(200, { data: [] }) : json(401, { status: 401, code: "invalid_token" })),
    });
    const session = new Session(api.fetch);
    await session.signIn("a@example.test", "password 1234");
    const response = await session.authorizedFetch(new Request("http://docex.test/api/v2/organizations"));
    expect(response.status).toBe(200);
    expect(api.callsTo("POST", "/auth/refresh")).toHaveLength(1);
    expect(sessionStorage.getItem("docex.refresh_token")).toBe("refresh-2");
    expect(api.callsTo("GET", "/organizations").at(-1)?.headers.get("authorization")).toMatch(/^Bearer /);
  });

  it("makes one refresh for concurrent callers", async () => {
    const api = new FakeApi({
      "POST /auth/login": () => json(200, tokens("user-1")),
      "POST /auth/refresh": () => json(200, tokens("user-1", "refresh-2")),
    });
    const session = new Session(api.fetch);
    await session.signIn("a@example.test", "password 1234");
    expect(await Promise.all([session.refresh(), session.refresh(), session.refresh()])).toEqual([true, true, true]);
    expect(api.callsTo("POST", "/auth/refresh")).toHaveLength(1);
  });

  it("signs out with the reason when the server reports the refresh token reused", async () => {
    const api = new FakeApi({
      "POST /auth/login": () => json(200, tokens("user-1")),
      "POST /auth/refresh": () => json(401, { status: 401, code: "refresh_token_reused", title: "Unauthorized", detail: "" }),
    });
    const session = new Session(api.fetch);
    await session.signIn("a@example.test", "password 1234");
    const reasons: unknown[] = [];
    session.subscribe((reason) => reasons.push(reason));
    expect(await session.refresh()).toBe(false);
    expect(session.signedIn).toBe(false);
    expect(reasons).toEqual(["reused"]);
    expect(sessionStorage.getItem("docex.refresh_token")).toBeNull();
  });

  it("resumes after a reload from the tab's refresh token", async () => {
    sessionStorage.setItem("docex.refresh_token", "refresh-9");
    const api = new FakeApi({ "POST /auth/refresh": () => json(200, tokens("user-9", "refresh-10")) });
    const session = new Session(api.fetch);
    expect(await session.resume()).toBe(true);
    expect(session.claims?.sub).toBe("user-9");
  });
});
