import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "../src/api/client.ts";
import { Session } from "../src/api/session.ts";
import { ServicesContext } from "../src/context.ts";
import { MagicLoginScreen } from "../src/screens/magic-login-screen.tsx";
import { AcceptInvitationScreen, SetPasswordScreen } from "../src/screens/password-link-screen.tsx";
import { SignInScreen } from "../src/screens/sign-in-screen.tsx";
import { BASE, FakeApi, json, tokens } from "./fake-api.ts";

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  localStorage.clear();
});

describe("SignInScreen", () => {
  it("asks for the TOTP code after the password when the account has one, then signs in", async () => {
    const api = new FakeApi({
      "POST /auth/login": ({ headers }) =>
        headers.get("x-totp") === "654321"
          ? json(200, tokens("user-1"))
          : json(401, { status: 401, code: headers.get("x-totp") ? "invalid_totp" : "totp_required", title: "Unauthorized", detail: "" }),
    });
    const session = new Session(api.fetch);
    render(
      <ServicesContext.Provider value={{ session, api: createApiClient(session, BASE) }}>
        <SignInScreen />
      </ServicesContext.Provider>,
    );
    expect(document.activeElement).toBe(screen.getByLabelText("Email"));
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "a@example.test" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "password 1234" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    const code = await screen.findByLabelText("Code from your authenticator app");
    await waitFor(() => expect(document.activeElement).toBe(code));
    fireEvent.change(code, { target: { value: "111111" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The code is not right or was used already.");
    fireEvent.change(screen.getByLabelText("Code from your authenticator app"), { target: { value: "654321" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(session.signedIn).toBe(true));
    expect(api.callsTo("POST", "/auth/login").map((call) => call.body)).toEqual([
      { email: "a@example.test", password: "password 1234" },
      { email: "a@example.test", password: "password 1234" },
      { email: "a@example.test", password: "password 1234" },
    ]);
  });

  it("says when the email or password is wrong, and when there were too many tries", async () => {
    let answer = 401;
    const api = new FakeApi({
      "POST /auth/login": () =>
        json(answer, { status: answer, code: answer === 429 ? "rate_limited" : "invalid_credentials", title: "", detail: "" }),
    });
    const session = new Session(api.fetch);
    render(
      <ServicesContext.Provider value={{ session, api: createApiClient(session, BASE) }}>
        <SignInScreen notice="Your session ended. Sign in again." />
      </ServicesContext.Provider>,
    );
    expect(screen.getByText("Your session ended. Sign in again.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The email or password is not right.");
    answer = 429;
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Too many tries. Wait a minute and try again."));
  });
});

describe("sign-in by a mailed link", () => {
  const renderWith = (api: FakeApi, screenElement: React.ReactNode) => {
    const session = new Session(api.fetch);
    render(<ServicesContext.Provider value={{ session, api: createApiClient(session, BASE) }}>{screenElement}</ServicesContext.Provider>);
    return session;
  };

  it("sends a sign-in link to the email typed, and asks for the email first when there is none", async () => {
    const api = new FakeApi({ "POST /auth/magic-link": () => new Response(null, { status: 202 }) });
    renderWith(api, <SignInScreen />);
    fireEvent.click(screen.getByRole("button", { name: "Send me a sign-in link" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Enter your email first: the link goes there.");
    expect(document.activeElement).toBe(screen.getByLabelText("Email"));
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "a@example.test" } });
    fireEvent.click(screen.getByRole("button", { name: "Send me a sign-in link" }));
    expect((await screen.findByRole("status")).textContent).toBe(
      "If a@example.test has an account, a sign-in link is on its way. It works once, for 15 minutes.",
    );
    expect(api.callsTo("POST", "/auth/magic-link").map((call) => call.body)).toEqual([{ email: "a@example.test" }]);
  });

  it("takes the token out of the address, signs in with it (with the TOTP code when the account has one) and opens the queues", async () => {
    history.replaceState(null, "", "/app/auth/magic-login?token=link-token");
    const api = new FakeApi({
      "POST /auth/magic-login": ({ body, headers }) =>
        (body as { token: string }).token === "link-token" && headers.get("x-totp") === "123456"
          ? json(200, tokens("user-1"))
          : json(401, { status: 401, code: "totp_required", title: "Unauthorized", detail: "" }),
    });
    const session = renderWith(api, <MagicLoginScreen token="link-token" />);
    const code = await screen.findByLabelText("Code from your authenticator app");
    expect(location.search, "the token leaves the address at once").toBe("");
    fireEvent.change(code, { target: { value: "123456" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(session.signedIn).toBe(true));
    expect(location.pathname).toBe("/app/");
    expect(api.callsTo("POST", "/auth/magic-login")).toHaveLength(2);
  });

  it("says when a link is used or expired, and offers the sign-in", async () => {
    const api = new FakeApi({
      "POST /auth/magic-login": () => json(401, { status: 401, code: "invalid_token", title: "Unauthorized", detail: "" }),
    });
    renderWith(api, <MagicLoginScreen token="used-token" />);
    expect((await screen.findByRole("alert")).textContent).toContain("This sign-in link is not valid any more");
    expect(screen.getByRole("link", { name: "Sign in, or ask for a new link" })).toBeTruthy();
  });
});

describe("mailed password and invitation links", () => {
  const renderWith = (api: FakeApi, element: React.ReactNode) => {
    const session = new Session(api.fetch);
    render(<ServicesContext.Provider value={{ session, api: createApiClient(session, BASE) }}>{element}</ServicesContext.Provider>);
    return session;
  };

  it("an invitee sees whose password the link sets, chooses one (10 characters at least) and is signed in", async () => {
    history.replaceState(null, "", "/app/auth/change-password?token=invite-token");
    const api = new FakeApi({
      "GET /auth/password-change-token": ({ query }) =>
        query.get("token") === "invite-token"
          ? json(200, { data: { email: "new@example.test", expires_at: "2026-12-08T10:00:00.000Z", purpose: "invitation" } })
          : json(401, { status: 401, code: "invalid_token", title: "Unauthorized", detail: "" }),
      "POST /auth/change-password": () => json(200, tokens("user-9")),
    });
    const session = renderWith(api, <SetPasswordScreen token="invite-token" />);
    await screen.findByText("You were invited to docex as new@example.test. Choose a password to sign in with.");
    expect(location.search).toBe("");
    const input = screen.getByLabelText("New password");
    fireEvent.change(input, { target: { value: "short" } });
    fireEvent.click(screen.getByRole("button", { name: "Set the password and sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The password needs at least 10 characters.");
    fireEvent.change(input, { target: { value: "a long enough password" } });
    fireEvent.click(screen.getByRole("button", { name: "Set the password and sign in" }));
    await waitFor(() => expect(session.signedIn).toBe(true));
    expect(api.callsTo("POST", "/auth/change-password").map((call) => call.body)).toEqual([
      { token: "invite-token", password: "a long enough password" },
    ]);
    expect(location.pathname).toBe("/app/");
  });

  it("an invitation is accepted by a click, and a used one says so", async () => {
    let used = false;
    const api = new FakeApi({
      "POST /auth/accept-invitation": () => {
        if (used) return json(401, { status: 401, code: "invalid_token", title: "Unauthorized", detail: "" });
        used = true;
        return json(200, { data: { organization_id: "o-1" } });
      },
    });
    renderWith(api, <AcceptInvitationScreen token="join-token" />);
    expect(api.callsTo("POST", "/auth/accept-invitation"), "nothing before the click").toHaveLength(0);
    fireEvent.click(screen.getByRole("button", { name: "Accept the invitation" }));
    expect((await screen.findByRole("status")).textContent).toBe("You are a member now.");
    cleanup();
    renderWith(api, <AcceptInvitationScreen token="join-token" />);
    fireEvent.click(screen.getByRole("button", { name: "Accept the invitation" }));
    expect((await screen.findByRole("alert")).textContent).toContain("This link is not valid any more");
  });
});
