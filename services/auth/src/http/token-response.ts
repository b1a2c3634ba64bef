import { z } from "zod";
import type { IssuedTokens } from "../domain/sessions.js";

/** TokenResponseDto (API.md "Auth"): what every login, refresh and first password answers in `data`. */
export const tokenResponseSchema = z.strictObject({
  access_token: z.string().describe("JWT signed ES256; its `kid` names a key of GET /auth/.well-known/jwks.json"),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int().positive().describe("Seconds until the access token expires (900)"),
  refresh_token: z.string().describe("Opaque and single-use; every refresh rotates it, and a reused one revokes its session"),
  refresh_expires_in: z.number().int().nonnegative().describe("Seconds left of the session: 2592000 at login, less after each refresh"),
  otp_trusted_source: z
    .string()
    .optional()
    .describe(
      "After a login with a valid x-totp only: sent as x-otp-trusted-source, it stands in for x-totp on this user's logins for 30 days",
    ),
});

export type TokenResponseDto = z.infer<typeof tokenResponseSchema>;

export function tokenResponse(tokens: IssuedTokens): TokenResponseDto {
  return {
    access_token: tokens.accessToken,
    token_type: "Bearer",
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
    refresh_expires_in: tokens.refreshExpiresIn,
    ...(tokens.otpTrustedSource ? { otp_trusted_source: tokens.otpTrustedSource } : {}),
  };
}
