import { randomUUID } from "node:crypto";
import type { UnitOfWork } from "@docex/kit/db";
import type { UserStore } from "../store/user-store.js";
import type { Clock } from "./clock.js";
import type { SelfOnboarding } from "./onboarding.js";
import type { PasswordHasher } from "./passwords.js";
import { normalizeEmail } from "./users.js";

/** The company name membership gives the first organization (API.md: an organization `bootstrap`). */
export const BOOTSTRAP_ORGANIZATION = "bootstrap";

/**
 * BOOTSTRAP_OWNER_EMAIL / BOOTSTRAP_OWNER_PASSWORD: a first user on an empty installation. Created
 * once (several instances starting together create it once), active, and completed as an onboarding
 * whose `auth.user_onboarded` tells membership to create the organization `bootstrap` it owns.
 */
export async function ensureBootstrapOwner(
  deps: { sql: UnitOfWork; users: UserStore; hasher: PasswordHasher; onboarding: SelfOnboarding; clock: Clock },
  owner: { email: string; password: string },
): Promise<"created" | "exists"> {
  const email = normalizeEmail(owner.email);
  if (await deps.users.findByEmail(email)) return "exists";
  const passwordHash = await deps.hasher.hash(owner.password);
  return deps.sql.transaction(async (tx) => {
    const now = deps.clock.now();
    const { user, created } = await deps.users.findOrCreate(tx, {
      id: randomUUID(),
      email,
      status: "active",
      passwordHash,
      uiLocale: "en",
      now,
    });
    if (!created) return "exists";
    await deps.users.saveOnboarding(
      tx,
      user.id,
      { phone: "", uiLocale: "en", company: BOOTSTRAP_ORGANIZATION, registerId: null, vatId: null, erp: null, invoiceCount: null },
      now,
    );
    await deps.onboarding.completeIn(tx, user, undefined);
    return "created";
  });
}
