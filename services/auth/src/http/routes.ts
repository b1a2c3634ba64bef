import { type AccessTokenVerifier, authenticate, callerOf } from "@docex/kit/auth";
import { NotFoundError, UnauthorizedError } from "@docex/kit/errors";
import { ApiDescription, dataOf } from "@docex/kit/http";
import type { Request, RequestHandler, Router } from "express";
import type { AuthDomain } from "../domain/auth-domain.js";
import type { RequestContext } from "../domain/request-context.js";
import {
  acceptedInvitationSchema,
  invitationTokenResponse,
  invitationTokenSchema,
  jwksSchema,
  passwordChangeResponse,
  passwordChangeSchema,
  totpEnrollmentResponse,
  totpEnrollmentSchema,
} from "./responses.js";
import {
  changePasswordBody,
  emailBody,
  loginBody,
  refreshTokenBody,
  registerBody,
  socialLoginBody,
  tokenBody,
  tokenQuery,
  totpConfirmBody,
  verifyPinBody,
} from "./schemas.js";
import { tokenResponse, tokenResponseSchema } from "./token-response.js";

const AUTH = "/api/v2/auth";
const TAGS = ["Authentication"];

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The client address: the gateway's signed one, else the peer's (kit's `req.clientAddress`; never X-Forwarded-For). */
function contextOf(req: Request): RequestContext {
  return {
    clientAddress: req.clientAddress,
    requestId: req.requestId,
    proof: { totp: header(req, "x-totp"), trustedSource: header(req, "x-otp-trusted-source") },
  };
}

/** Token answers must not be cached anywhere (RFC 6749 §5.1); the JWKS sets its own policy. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader("cache-control", "no-store");
  next();
};

const NOT_STORED = { "Cache-Control": "`no-store`: answers of /auth are never cached" };
const TOKENS = { description: "Signed in: TokenResponseDto", schema: dataOf(tokenResponseSchema), headers: NOT_STORED };
const SECOND_FACTOR =
  "With two-factor authentication on, send a current code in the `x-totp` header or a trusted source from an earlier login in " +
  "`x-otp-trusted-source`; without either the answer is 401 `totp_required`. A login with `x-totp` also returns `otp_trusted_source`.";

export interface AuthHttp {
  /** The operations below, published at GET /openapi.json. */
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Thin routes: parse with the schema, call the domain, shape the answer. */
export function authHttp(domain: AuthDomain, verifier: AccessTokenVerifier): AuthHttp {
  const api = new ApiDescription("auth");
  const signedIn = authenticate(verifier);

  const currentUser = async (req: Request) => {
    // Only "no such user" means the account is gone; any other failure (the database down: 503) is thrown as it is.
    const user = await domain.directory.get(callerOf(req).userId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    if (!user || user.status === "deactivated") throw new UnauthorizedError("The account of this token no longer exists.", "invalid_token");
    return user;
  };

  const routes = (router: Router) => {
    api.route(
      router,
      {
        method: "get",
        path: `${AUTH}/.well-known/jwks.json`,
        operationId: "getJwks",
        summary: "The public keys that verify access tokens (JWKS)",
        tags: TAGS,
        public: true,
        responses: {
          200: {
            description: "The current and recently retired public keys",
            schema: jwksSchema,
            headers: { "Cache-Control": "`public, max-age=60`" },
          },
        },
      },
      async (_input, _req, res) => {
        res.setHeader("cache-control", "public, max-age=60");
        res.json(await domain.signingKeys.jwks());
      },
    );

    router.use(AUTH, noStore);

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/login`,
        operationId: "login",
        summary: "Sign in with email and password",
        description: SECOND_FACTOR,
        tags: TAGS,
        public: true,
        body: loginBody,
        responses: { 200: TOKENS },
        problems: [401, 429],
      },
      async ({ body }, req, res) => {
        res.json({ data: tokenResponse(await domain.login.withPassword(body.email, body.password, contextOf(req))) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/social-login`,
        operationId: "socialLogin",
        summary: "Sign in an existing user with an OpenID Connect id_token of a trusted issuer",
        description:
          "The id_token's email must be verified and equal the body's. With the optional `nonce`, the id_token's `nonce` claim must be " +
          "its SHA-256 (base64url or hex) or the nonce itself: the client makes a random nonce, sends its hash to the issuer and the " +
          "nonce itself here. Without it, the id_token must have been issued within the last 5 minutes, and an issuer configured with " +
          `\`require_nonce\` refuses it. An id_token logs in once only. ${SECOND_FACTOR}`,
        tags: TAGS,
        public: true,
        body: socialLoginBody,
        responses: { 200: TOKENS },
        problems: [401, 429],
      },
      async ({ body }, req, res) => {
        res.json({ data: tokenResponse(await domain.login.withSocialIdToken(body.email, body.id_token, body.nonce, contextOf(req))) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/magic-link`,
        operationId: "requestMagicLink",
        summary: "Email a single-use sign-in link",
        description: "Answers 202 whether or not the email is registered.",
        tags: TAGS,
        public: true,
        body: emailBody,
        responses: { 202: { description: "Accepted; a link is mailed if the email belongs to an active user", headers: NOT_STORED } },
        problems: [429],
      },
      async ({ body }, req, res) => {
        await domain.mailedTokens.requestMagicLink(body.email, contextOf(req));
        res.status(202).end();
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/magic-login`,
        operationId: "magicLogin",
        summary: "Sign in with the token of a magic link",
        tags: TAGS,
        public: true,
        body: tokenBody,
        responses: { 200: TOKENS },
        problems: [401, 429],
      },
      async ({ body }, req, res) => {
        res.json({ data: tokenResponse(await domain.login.withMagicToken(body.token, contextOf(req))) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/refresh`,
        operationId: "refreshTokens",
        summary: "Exchange a refresh token for new tokens",
        description: "The refresh token is single-use; presenting a used one again revokes its whole session.",
        tags: TAGS,
        public: true,
        body: refreshTokenBody,
        responses: { 200: { ...TOKENS, description: "The new tokens; the old refresh token is used up" } },
        problems: [401],
      },
      async ({ body }, _req, res) => {
        res.json({ data: tokenResponse(await domain.sessions.refresh(body.refresh_token)) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/logout`,
        operationId: "logout",
        summary: "End the session of a refresh token",
        tags: TAGS,
        public: true,
        body: refreshTokenBody,
        responses: { 204: { description: "The session is ended (also when it had ended already)", headers: NOT_STORED } },
      },
      async ({ body }, _req, res) => {
        await domain.sessions.logout(body.refresh_token);
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/password-reset`,
        operationId: "requestPasswordReset",
        summary: "Email a password reset token",
        description: "Answers 202 whether or not the email is registered.",
        tags: TAGS,
        public: true,
        body: emailBody,
        responses: {
          202: { description: "Accepted; a token is mailed if the email belongs to an active or invited user", headers: NOT_STORED },
        },
        problems: [429],
      },
      async ({ body }, req, res) => {
        await domain.mailedTokens.requestPasswordReset(body.email, contextOf(req));
        res.status(202).end();
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${AUTH}/password-change-token`,
        operationId: "inspectPasswordChangeToken",
        summary: "What a reset or invitation token is for, without using it up",
        tags: TAGS,
        public: true,
        query: tokenQuery,
        responses: { 200: { description: "PasswordChangeDto", schema: dataOf(passwordChangeSchema), headers: NOT_STORED } },
        problems: [401, 429],
      },
      async ({ query }, req, res) => {
        res.json({ data: passwordChangeResponse(await domain.passwordChange.inspect(query.token, contextOf(req))) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/change-password`,
        operationId: "changePassword",
        summary: "Set a password with a reset or invitation token, and sign in",
        description:
          "Ends the user's other sessions. With the invitation token of a self-registration it also completes onboarding: the " +
          "organization named by `company` exists, with the user as owner, when the tokens are returned.",
        tags: TAGS,
        public: true,
        body: changePasswordBody,
        responses: { 200: TOKENS },
        problems: [401, 429],
      },
      async ({ body }, req, res) => {
        res.json({ data: tokenResponse(await domain.passwordChange.change(body.token, body.password, contextOf(req))) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/accept-invitation`,
        operationId: "acceptInvitation",
        summary: "Accept an invitation to an organization with the mailed invitation token",
        description:
          "An invited user becomes a member only by accepting: with this call (the token is the consent of the mailbox it " +
          "was sent to), or, without a password yet, by setting one with `POST /auth/change-password`. The token is single " +
          "use and expires with the invitation (`INVITATION_TTL_DAYS` of membership, 7 days). An unknown, expired, used or " +
          "withdrawn invitation is 401 `invalid_token`.",
        tags: TAGS,
        public: true,
        body: tokenBody,
        responses: {
          200: {
            description: "Accepted: the user is a member of the organization",
            schema: dataOf(acceptedInvitationSchema),
            headers: NOT_STORED,
          },
        },
        problems: [401, 429, 502, 503, 504],
      },
      async ({ body }, req, res) => {
        const { organizationId } = await domain.invitations.accept(body.token, contextOf(req));
        res.json({ data: { organization_id: organizationId } });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/register`,
        operationId: "register",
        summary: "Start self-registration: email a six-digit onboarding PIN",
        description: "Answers 202 with no body whether or not the email is registered; the outcome arrives by mail.",
        tags: TAGS,
        public: true,
        body: registerBody,
        responses: { 202: { description: "Accepted; the PIN is mailed unless the email belongs to an active user", headers: NOT_STORED } },
        problems: [429],
      },
      async ({ body }, req, res) => {
        await domain.onboarding.register(
          {
            email: body.email,
            phone: body.phone,
            uiLocale: body.ui_locale,
            company: body.company || null,
            registerId: body.register_id || null,
            vatId: body.vat_id || null,
            erp: body.erp || null,
            invoiceCount: body.invoice_count ?? null,
          },
          contextOf(req),
        );
        res.status(202).end();
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/verify-onboarding-pin`,
        operationId: "verifyOnboardingPin",
        summary: "Exchange an onboarding PIN for the invitation token that sets the first password",
        tags: TAGS,
        public: true,
        body: verifyPinBody,
        responses: { 200: { description: "The PIN is used up", schema: dataOf(invitationTokenSchema), headers: NOT_STORED } },
        problems: [401, 429],
      },
      async ({ body }, req, res) => {
        const { invitationToken } = await domain.onboarding.verifyPin(body.email, body.pin, contextOf(req));
        res.json({ data: invitationTokenResponse(invitationToken) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/totp`,
        operationId: "beginTotpEnrollment",
        summary: "Start turning on two-factor authentication: a new TOTP secret",
        tags: TAGS,
        responses: {
          200: { description: "The secret to confirm with a code", schema: dataOf(totpEnrollmentSchema), headers: NOT_STORED },
        },
        problems: [409],
      },
      signedIn,
      async (_input, req, res) => {
        res.json({ data: totpEnrollmentResponse(await domain.twoFactor.begin(await currentUser(req))) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${AUTH}/totp/confirm`,
        operationId: "confirmTotp",
        summary: "Turn on two-factor authentication with a current code of the new secret",
        tags: TAGS,
        body: totpConfirmBody,
        responses: { 204: { description: "Two-factor authentication is on", headers: NOT_STORED } },
        problems: [409, 429],
      },
      signedIn,
      async ({ body }, req, res) => {
        await domain.twoFactor.confirm(await currentUser(req), body.code, contextOf(req));
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "delete",
        path: `${AUTH}/me`,
        operationId: "erasePersonalData",
        summary: "Erase the caller's personal data",
        description:
          "The account's name and email are erased (the email becomes a placeholder in `erased.invalid`) and it can no longer " +
          "sign in: every session is revoked. Publishes `user.personal_data_erased`: membership erases the person's email and " +
          "name in every organization (their memberships are deactivated) and the audit log keeps their entries without values.",
        tags: TAGS,
        responses: { 204: { description: "Erased", headers: NOT_STORED } },
        problems: [503],
      },
      signedIn,
      async (_input, req, res) => {
        const user = await currentUser(req);
        await domain.erasure.eraseSelf(user.id, contextOf(req));
        res.status(204).end();
      },
    );

    api.route(
      router,
      {
        method: "delete",
        path: `${AUTH}/totp`,
        operationId: "disableTotp",
        summary: "Turn off two-factor authentication",
        description:
          "Needs a second factor besides the access token: a token from a login with a code, or a current code in `x-totp` " +
          "(else 401 `totp_required`). Revokes the user's trusted sources.",
        tags: TAGS,
        responses: { 204: { description: "Two-factor authentication is off", headers: NOT_STORED } },
        problems: [429],
      },
      signedIn,
      async (_input, req, res) => {
        await domain.twoFactor.disable(await currentUser(req), callerOf(req).amr, contextOf(req));
        res.status(204).end();
      },
    );
  };

  return { api, routes };
}
