import { z } from "zod";
import type { PasswordChangeToken } from "../domain/password-change.js";
import type { TotpEnrollment } from "../domain/two-factor.js";

/** PasswordChangeDto: what an emailed reset or invitation token is for, without using it up. */
export const passwordChangeSchema = z.strictObject({
  email: z.email(),
  expires_at: z.iso.datetime(),
  purpose: z.enum(["reset", "invitation"]),
});

export function passwordChangeResponse(token: PasswordChangeToken): z.infer<typeof passwordChangeSchema> {
  return { email: token.email, expires_at: token.expiresAt.toISOString(), purpose: token.purpose };
}

export const invitationTokenSchema = z.strictObject({
  invitation_token: z.string().describe("Sets the first password with POST /auth/change-password"),
});

export const acceptedInvitationSchema = z.strictObject({
  organization_id: z.string().describe("The organization the user is now a member of"),
});

export function invitationTokenResponse(invitationToken: string): z.infer<typeof invitationTokenSchema> {
  return { invitation_token: invitationToken };
}

export const totpEnrollmentSchema = z.strictObject({
  secret: z.string().describe("Base32 TOTP secret"),
  otpauth_uri: z.string().describe("`otpauth://totp/...` for authenticator apps; confirm with POST /auth/totp/confirm"),
});

export function totpEnrollmentResponse(enrollment: TotpEnrollment): z.infer<typeof totpEnrollmentSchema> {
  return { secret: enrollment.secret, otpauth_uri: enrollment.otpauthUri };
}

/** The public half of a signing key (RFC 7517); retired keys stay listed while tokens they signed may still be valid. */
const publishedKeySchema = z.object({
  kid: z.string(),
  alg: z.string().describe("ES256"),
  use: z.literal("sig"),
  kty: z.string().describe("EC"),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
});

/** The JWKS document itself, not wrapped in `data`, so that JWT libraries can read it. */
export const jwksSchema = z.object({ keys: z.array(publishedKeySchema) });
