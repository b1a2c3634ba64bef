import type { TokenResponse } from "./types.ts";

/** What a sign-in attempt came to. */
export type SignInOutcome = { kind: "signed_in" } | { kind: "totp_required" } | { kind: "refused"; status: number; code?: string };

/** Why the session ended without the user asking. */
export type SignOutReason = "expired" | "reused" | "user";

interface Claims {
  sub: string;
  email?: string;
  exp?: number;
  ui_locale?: string;
}

const REFRESH_KEY = "docex.refresh_token";
const TRUSTED_SOURCE_KEY = "docex.otp_trusted_source";
/** Refresh this long before the access token expires, so that no request meets an expired one. */
const REFRESH_AHEAD_MS = 60_000;

function claimsOf(token: string): Claims | undefined {
  try {
    const payload = token.split(".")[1] ?? "";
    return JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as Claims;
  } catch {
    return undefined;
  }
}

/**
 * The signed-in user's tokens. The access token lives in memory only; the refresh token in the tab's sessionStorage
 * (a reload keeps the session, a second tab signs in on its own: two tabs rotating one refresh token would look like
 * a stolen token and end both sessions). The access token is refreshed quietly a minute before it expires, and once
 * more on a 401; a refresh the server refuses (reused, revoked, expired) signs out with the reason.
 */
export class Session {
  private accessToken: string | undefined;
  private refreshing: Promise<boolean> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<(reason?: SignOutReason) => void>();

  constructor(
    private readonly fetchImpl: typeof fetch = (...args) => fetch(...args),
    private readonly storage: Storage = sessionStorage,
    private readonly persistent: Storage = localStorage,
  ) {}

  get signedIn(): boolean {
    return this.accessToken !== undefined;
  }

  get token(): string | undefined {
    return this.accessToken;
  }

  get claims(): Claims | undefined {
    return this.accessToken ? claimsOf(this.accessToken) : undefined;
  }

  /** Called with the reason whenever the user is signed out, and with nothing when signed in. */
  subscribe(listener: (reason?: SignOutReason) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** After a reload: the refresh token of this tab, if any, turned into a fresh access token. */
  async resume(): Promise<boolean> {
    if (!this.storage.getItem(REFRESH_KEY)) return false;
    return this.refresh();
  }

  async signIn(email: string, password: string, totp?: string): Promise<SignInOutcome> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    const trusted = this.persistent.getItem(`${TRUSTED_SOURCE_KEY}:${email.trim().toLowerCase()}`);
    if (totp) headers["x-totp"] = totp;
    else if (trusted) headers["x-otp-trusted-source"] = trusted;
    const response = await this.fetchImpl("/api/v2/auth/login", { method: "POST", headers, body: JSON.stringify({ email, password }) });
    return this.outcomeOf(response, email);
  }

  /** A login's answer: the tokens accepted (and the trusted source kept for `email`), or why not. */
  private async outcomeOf(response: Response, email?: string): Promise<SignInOutcome> {
    if (response.ok) {
      const tokens = ((await response.json()) as { data: TokenResponse }).data;
      if (tokens.otp_trusted_source && email) {
        this.persistent.setItem(`${TRUSTED_SOURCE_KEY}:${email.trim().toLowerCase()}`, tokens.otp_trusted_source);
      }
      this.accept(tokens);
      return { kind: "signed_in" };
    }
    const problem = (await response.json().catch(() => ({}))) as { code?: string };
    if (response.status === 401 && problem.code === "totp_required") return { kind: "totp_required" };
    return { kind: "refused", status: response.status, ...(problem.code ? { code: problem.code } : {}) };
  }

  /** Mails a single-use sign-in link to `email` (POST /auth/magic-link): 202 whether or not it has an account. */
  async requestMagicLink(email: string): Promise<{ sent: true } | { sent: false; status: number }> {
    const response = await this.fetchImpl("/api/v2/auth/magic-link", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: email.trim() }),
    });
    return response.status === 202 ? { sent: true } : { sent: false, status: response.status };
  }

  /**
   * Signs in with the token of a mailed link (POST /auth/magic-login). An account with two-step verification needs
   * the code as well: the token stays valid until a login with it succeeds.
   */
  async magicLogin(token: string, totp?: string): Promise<SignInOutcome> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (totp) headers["x-totp"] = totp;
    const response = await this.fetchImpl("/api/v2/auth/magic-login", { method: "POST", headers, body: JSON.stringify({ token }) });
    return this.outcomeOf(response);
  }

  /** Sets the password with the token of a mailed reset or invitation link, and signs in (POST /auth/change-password). */
  async setPassword(token: string, password: string): Promise<SignInOutcome> {
    const response = await this.fetchImpl("/api/v2/auth/change-password", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, password }),
    });
    return this.outcomeOf(response);
  }

  /** One refresh at a time: concurrent 401s wait for the same one. True when a new access token was obtained. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  async signOut(reason: SignOutReason = "user"): Promise<void> {
    const refreshToken = this.storage.getItem(REFRESH_KEY);
    this.clear(reason);
    if (refreshToken && reason === "user") {
      await this.fetchImpl("/api/v2/auth/logout", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: refreshToken }),
      }).catch(() => undefined);
    }
  }

  /** `fetch` with the access token; a 401 is retried once after a quiet refresh. */
  async authorizedFetch(request: Request): Promise<Response> {
    const retry = request.clone();
    const response = await this.fetchImpl(this.withToken(request));
    if (response.status !== 401 || !this.storage.getItem(REFRESH_KEY)) return response;
    if (!(await this.refresh())) return response;
    return this.fetchImpl(this.withToken(retry));
  }

  private withToken(request: Request): Request {
    if (this.accessToken) request.headers.set("authorization", `Bearer ${this.accessToken}`);
    return request;
  }

  private async doRefresh(): Promise<boolean> {
    const refreshToken = this.storage.getItem(REFRESH_KEY);
    if (!refreshToken) return false;
    let response: Response;
    try {
      response = await this.fetchImpl("/api/v2/auth/refresh", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: refreshToken }),
      });
    } catch {
      // Offline or the gateway away: keep the session and try again on the next request.
      return false;
    }
    if (response.ok) {
      this.accept(((await response.json()) as { data: TokenResponse }).data);
      return true;
    }
    if (response.status === 400 || response.status === 401) {
      const problem = (await response.json().catch(() => ({}))) as { code?: string };
      this.clear(problem.code?.includes("reuse") ? "reused" : "expired");
    }
    return false;
  }

  private accept(tokens: TokenResponse): void {
    this.accessToken = tokens.access_token;
    this.storage.setItem(REFRESH_KEY, tokens.refresh_token);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), Math.max(5_000, tokens.expires_in * 1000 - REFRESH_AHEAD_MS));
    for (const listener of this.listeners) listener();
  }

  private clear(reason: SignOutReason): void {
    clearTimeout(this.timer);
    this.accessToken = undefined;
    this.storage.removeItem(REFRESH_KEY);
    for (const listener of this.listeners) listener(reason);
  }
}
