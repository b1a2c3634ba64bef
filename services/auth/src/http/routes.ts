import { authenticate, callerOf, parseInput, type TokenVerifier, UnauthorizedError } from "@docex/kit";
import type { Request, RequestHandler, Router } from "express";
import type { AuthDomain } from "../domain/auth-domain.js";
import type { RequestContext } from "../domain/request-context.js";
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
import { tokenResponse } from "./token-response.js";

const AUTH = "/api/v2/auth";

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The client address (behind the gateway: from x-forwarded-for, which the kit trusts from private addresses only). */
function contextOf(req: Request): RequestContext {
  return {
    clientAddress: req.ip ?? req.socket.remoteAddress ?? "unknown",
    requestId: req.requestId,
    proof: { totp: header(req, "x-totp"), trustedSource: header(req, "x-otp-trusted-source") },
  };
}

/** Token answers must not be cached anywhere (RFC 6749 §5.1); the JWKS sets its own policy. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader("cache-control", "no-store");
  next();
};

/** Thin routes: parse with the schema, call the domain, shape the answer. */
export function authRoutes(domain: AuthDomain, verifier: TokenVerifier): (router: Router) => void {
  const signedIn = authenticate(verifier);

  const currentUser = async (req: Request) => {
    const user = await domain.directory.get(callerOf(req).userId).catch(() => undefined);
    if (!user || user.status === "deactivated") throw new UnauthorizedError("The account of this token no longer exists.", "invalid_token");
    return user;
  };

  return (router) => {
    router.get(`${AUTH}/.well-known/jwks.json`, async (_req, res) => {
      res.setHeader("cache-control", "public, max-age=60");
      res.json(await domain.signingKeys.jwks());
    });

    router.use(AUTH, noStore);

    router.post(`${AUTH}/login`, async (req, res) => {
      const body = parseInput(loginBody, req.body);
      res.json({ data: tokenResponse(await domain.login.withPassword(body.email, body.password, contextOf(req))) });
    });

    router.post(`${AUTH}/social-login`, async (req, res) => {
      const body = parseInput(socialLoginBody, req.body);
      res.json({ data: tokenResponse(await domain.login.withSocialIdToken(body.email, body.id_token, contextOf(req))) });
    });

    router.post(`${AUTH}/magic-link`, async (req, res) => {
      const body = parseInput(emailBody, req.body);
      await domain.mailedTokens.requestMagicLink(body.email, contextOf(req));
      res.status(202).end();
    });

    router.post(`${AUTH}/magic-login`, async (req, res) => {
      const body = parseInput(tokenBody, req.body);
      res.json({ data: tokenResponse(await domain.login.withMagicToken(body.token, contextOf(req))) });
    });

    router.post(`${AUTH}/refresh`, async (req, res) => {
      const body = parseInput(refreshTokenBody, req.body);
      res.json({ data: tokenResponse(await domain.sessions.refresh(body.refresh_token)) });
    });

    router.post(`${AUTH}/logout`, async (req, res) => {
      const body = parseInput(refreshTokenBody, req.body);
      await domain.sessions.logout(body.refresh_token);
      res.status(204).end();
    });

    router.post(`${AUTH}/password-reset`, async (req, res) => {
      const body = parseInput(emailBody, req.body);
      await domain.mailedTokens.requestPasswordReset(body.email, contextOf(req));
      res.status(202).end();
    });

    router.get(`${AUTH}/password-change-token`, async (req, res) => {
      const query = parseInput(tokenQuery, req.query, "query");
      const token = await domain.passwordChange.inspect(query.token, contextOf(req));
      res.json({ data: { email: token.email, expires_at: token.expiresAt.toISOString(), purpose: token.purpose } });
    });

    router.post(`${AUTH}/change-password`, async (req, res) => {
      const body = parseInput(changePasswordBody, req.body);
      res.json({ data: tokenResponse(await domain.passwordChange.change(body.token, body.password, contextOf(req))) });
    });

    router.post(`${AUTH}/register`, async (req, res) => {
      const body = parseInput(registerBody, req.body);
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
    });

    router.post(`${AUTH}/verify-onboarding-pin`, async (req, res) => {
      const body = parseInput(verifyPinBody, req.body);
      const { invitationToken } = await domain.onboarding.verifyPin(body.email, body.pin, contextOf(req));
      res.json({ data: { invitation_token: invitationToken } });
    });

    router.post(`${AUTH}/totp`, signedIn, async (req, res) => {
      const enrollment = await domain.twoFactor.begin(await currentUser(req));
      res.json({ data: { secret: enrollment.secret, otpauth_uri: enrollment.otpauthUri } });
    });

    router.post(`${AUTH}/totp/confirm`, signedIn, async (req, res) => {
      const body = parseInput(totpConfirmBody, req.body);
      await domain.twoFactor.confirm(await currentUser(req), body.code, contextOf(req));
      res.status(204).end();
    });

    router.delete(`${AUTH}/totp`, signedIn, async (req, res) => {
      await domain.twoFactor.disable(await currentUser(req), callerOf(req).amr, contextOf(req));
      res.status(204).end();
    });
  };
}
