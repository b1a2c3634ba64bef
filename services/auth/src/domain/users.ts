import { UI_LOCALES, type UiLocale } from "@docex/events";

export type UserStatus = "invited" | "active" | "deactivated";

/** A user as the store answers it. Secrets stay sealed until the domain opens them. */
export interface User {
  id: string;
  email: string;
  name: string;
  /** `invited`: no password set yet. */
  status: UserStatus;
  passwordHash: string | null;
  uiLocale: string | null;
  totpSecret: string | null;
  totpPendingSecret: string | null;
  totpEnabled: boolean;
  createdAt: Date;
}

/** What POST /auth/register tells about the company; it becomes `auth.user_onboarded`. */
export interface OnboardingProfile {
  phone: string;
  uiLocale: UiLocale;
  company: string | null;
  registerId: string | null;
  vatId: string | null;
  erp: string | null;
  invoiceCount: number | null;
}

export interface Onboarding extends OnboardingProfile {
  userId: string;
  registeredAt: Date;
  completedAt: Date | null;
  organizationId: string | null;
}

/** Emails are compared and stored trimmed and lowercased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isUiLocale(value: string | null | undefined): value is UiLocale {
  return (UI_LOCALES as readonly string[]).includes(value ?? "");
}
