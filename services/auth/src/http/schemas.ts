import { UI_LOCALES } from "@docex/events";
import { z } from "zod";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordLength } from "../domain/passwords.js";

/** Surrounding spaces (a pasted address) are dropped before the address is checked. */
const email = z
  .string()
  .trim()
  .pipe(z.email().max(254))
  .meta({ format: "email", description: "Matched without regard to case; surrounding spaces are dropped" });
const opaqueToken = z.string().min(1).max(512);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

/** A new password: 10 to 128 characters, no composition rules. */
const newPassword = z
  .string()
  .refine((value) => passwordLength(value) >= PASSWORD_MIN_LENGTH && passwordLength(value) <= PASSWORD_MAX_LENGTH, {
    message: `Must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
  })
  .describe(`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, no composition rules`);

/** No password longer than the limit was ever set, so a longer one is refused without hashing it. */
const givenPassword = z
  .string()
  .min(1)
  .refine((value) => passwordLength(value) <= PASSWORD_MAX_LENGTH, { message: `Must be at most ${PASSWORD_MAX_LENGTH} characters long` });

export const loginBody = z.object({ email, password: givenPassword });
export const emailBody = z.object({ email });
export const tokenBody = z.object({ token: opaqueToken.describe("The token of the mailed link") });
export const tokenQuery = z.object({ token: opaqueToken.describe("The mailed reset or invitation token") });
export const refreshTokenBody = z.object({ refresh_token: opaqueToken });
export const changePasswordBody = z.object({ token: opaqueToken, password: newPassword });
export const socialLoginBody = z.object({
  email,
  id_token: z.string().min(1).max(16_384).describe("An OpenID Connect id_token of an issuer in SOCIAL_OIDC_ISSUERS"),
  nonce: z
    .string()
    .min(16)
    .max(512)
    .optional()
    .describe(
      "Optional: the random nonce this client made for the sign-in; the id_token's `nonce` claim must then be its SHA-256 " +
        "(base64url or hex) or the nonce itself. Without it the id_token must be at most 5 minutes old, unless its issuer requires a nonce",
    ),
});
export const verifyPinBody = z.object({ email, pin: z.string().regex(/^\d{6}$/, "Must be six digits") });
export const totpConfirmBody = z.object({ code: z.string().regex(/^\d{6}$/, "Must be six digits") });

export const registerBody = z.object({
  email,
  phone: z.string().trim().min(1).max(64),
  ui_locale: z.enum(UI_LOCALES),
  company: optionalText(200),
  register_id: optionalText(100),
  vat_id: optionalText(100),
  erp: optionalText(100),
  invoice_count: z.number().nonnegative().nullable().optional(),
});
