import { serviceConfigSchema } from "@docex/kit/config";
import { z } from "zod";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./domain/passwords.js";

/** Compose passes `VAR:` through as an empty string when the shell leaves it unset; that means "not set". */
const unsetWhenEmpty = (value: unknown) => (value === "" ? undefined : value);

const encryptionKey = z
  .string({ error: "is required: the base64 encoding of 32 random bytes (openssl rand -base64 32)" })
  .refine((value) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, "base64").length === 32, {
    message: "must be the base64 encoding of exactly 32 bytes (openssl rand -base64 32)",
  });

export const socialIssuerSchema = z.object({
  issuer: z.string().min(1),
  audience: z.string().min(1),
  jwks_uri: z.url(),
  /** Refuse this issuer's id_tokens sent without the sign-in's nonce (the spec's body has none, so off by default). */
  require_nonce: z.boolean().default(false),
});
export type SocialIssuer = z.infer<typeof socialIssuerSchema>;

const socialIssuers = z
  .string()
  .default("[]")
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON array of {issuer, audience, jwks_uri, require_nonce?}" });
      return z.NEVER;
    }
  })
  .pipe(z.array(socialIssuerSchema));

const count = (fallback: number) => z.coerce.number().int().min(1).default(fallback);
const seconds = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** The kit's settings plus the auth service's own. Secrets have no defaults. */
export const configSchema = serviceConfigSchema("auth")
  .extend({
    /** Base64 of 32 bytes (a secret): seals the JWT signing keys and TOTP secrets, keys the PIN digests. @default **required, secret** */
    AUTH_KEY_ENCRYPTION_KEY: encryptionKey,
    /** Where mail goes (`smtp://mail:25`); unset: mail is only published and logged as not sent (`npm start` points it at its local mail sink). */
    SMTP_URL: z.preprocess(unsetWhenEmpty, z.url().optional()),
    /** The sender of every mail. */
    MAIL_FROM: z.string().min(3).default("docex <no-reply@docex.invalid>"),
    /** Base of the links in mails: the web application that calls magic-login and change-password (the gateway serves docex's at /app). */
    AUTH_APP_URL: z.url().default("http://127.0.0.1:8080/app"),
    /** The name authenticator apps show next to the code. */
    AUTH_TOTP_ISSUER: z.string().min(1).default("docex"),
    /** JSON array of `{issuer, audience, jwks_uri, require_nonce?}` trusted for social login (`require_nonce`: refuse id_tokens sent without the sign-in's nonce). */
    SOCIAL_OIDC_ISSUERS: z.preprocess(unsetWhenEmpty, socialIssuers),
    /** With BOOTSTRAP_OWNER_PASSWORD (both or neither): the first user, created at start-up when missing, owner of the organization `bootstrap` (`npm start` sets its local owner's when they are unset). */
    BOOTSTRAP_OWNER_EMAIL: z.preprocess(unsetWhenEmpty, z.email().optional()),
    /** The first user's password (a secret), with BOOTSTRAP_OWNER_EMAIL. */
    BOOTSTRAP_OWNER_PASSWORD: z.preprocess(unsetWhenEmpty, z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH).optional()),
    /** Failed logins, PIN and TOTP tries per account from one client address (IPv6: /64) before a lockout; it doubles on repeat. */
    AUTH_ACCOUNT_FAILURE_LIMIT: count(10),
    /** The window of AUTH_ACCOUNT_FAILURE_LIMIT and AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT. */
    AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS: seconds(15 * 60),
    /** The same per account from all addresses together, in the same window: guesses spread over many addresses. */
    AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT: count(50),
    /** Failures per client address (IPv6: /64), whatever the account. */
    AUTH_ADDRESS_FAILURE_LIMIT: count(100),
    /** The window of AUTH_ADDRESS_FAILURE_LIMIT. */
    AUTH_ADDRESS_FAILURE_WINDOW_SECONDS: seconds(5 * 60),
    /** The longest one lockout lasts, however often it repeats. */
    AUTH_LOCKOUT_MAX_SECONDS: seconds(15 * 60),
    /** Mails (magic link, reset, PIN) per recipient and window; more are dropped silently (the answer stays 202). */
    AUTH_MAIL_LIMIT_PER_RECIPIENT: count(5),
    /** Mail requests per client address and window; more answer 429. */
    AUTH_MAIL_LIMIT_PER_ADDRESS: count(30),
    /** The window of the two mail limits. */
    AUTH_MAIL_WINDOW_SECONDS: seconds(15 * 60),
    /** A rotated refresh token presented again within this many seconds is refused without revoking its family. */
    AUTH_REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).default(10),
    /** Age at which the JWT signing key is replaced (the old one still verifies until its tokens expire). */
    AUTH_SIGNING_KEY_ROTATION_DAYS: z.coerce.number().min(1).default(30),
  })
  .superRefine((config, ctx) => {
    const email = config.BOOTSTRAP_OWNER_EMAIL !== undefined;
    const password = config.BOOTSTRAP_OWNER_PASSWORD !== undefined;
    if (email !== password) {
      ctx.addIssue({
        code: "custom",
        path: [email ? "BOOTSTRAP_OWNER_PASSWORD" : "BOOTSTRAP_OWNER_EMAIL"],
        message: "BOOTSTRAP_OWNER_EMAIL and BOOTSTRAP_OWNER_PASSWORD are set together or not at all",
      });
    }
  });

export type AuthConfig = z.infer<typeof configSchema>;
