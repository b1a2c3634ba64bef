import { UnauthorizedError } from "@docex/kit/errors";

/**
 * The 401 answers of this context. Each says as little as it must: a wrong password and an unknown
 * email share one answer, and so do an unknown, expired and used one-time token.
 */
export const authErrors = {
  invalidCredentials: () => new UnauthorizedError("The email or password is incorrect.", "invalid_credentials"),
  totpRequired: () =>
    new UnauthorizedError(
      "This account has two-factor authentication on: send a current code in x-totp, or a trusted source in x-otp-trusted-source.",
      "totp_required",
    ),
  invalidToken: () => new UnauthorizedError("The token is invalid, expired or already used.", "invalid_token"),
  invalidPin: () => new UnauthorizedError("The PIN is invalid, expired or used up; register again to get a new one.", "invalid_pin"),
  invalidRefreshToken: () => new UnauthorizedError("The refresh token is invalid, expired or revoked.", "invalid_refresh_token"),
  refreshTokenReused: () =>
    new UnauthorizedError("The refresh token was already used; sign in again if this session ended.", "refresh_token_reused"),
  invalidIdToken: (why: string) => new UnauthorizedError(`The id_token is not accepted: ${why}.`, "invalid_id_token"),
};
