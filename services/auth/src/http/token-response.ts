import type { IssuedTokens } from "../domain/sessions.js";

/** TokenResponseDto (API.md "Auth"). */
export interface TokenResponseDto {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  otp_trusted_source?: string;
}

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
