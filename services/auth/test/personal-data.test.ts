import { createEvent } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { databaseUrl } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { EventRecorder, eventually, testNatsUrl } from "@docex/testkit";
import { expect } from "chai";
import pg from "pg";
import { AuthHarness, newAddress, newEmail } from "./support/auth-harness.js";

const PASSWORD = "correct horse battery staple";

describe("erasing a person's account (DELETE /auth/me, and an owner's erasure that takes the account)", () => {
  let auth: AuthHarness;
  let db: pg.Client;
  let bus: EventBus;
  let erasures: EventRecorder;

  before(async () => {
    auth = await AuthHarness.start();
    db = new pg.Client({ connectionString: databaseUrl(auth.config.DATABASE_URL, auth.config.DATABASE_NAME) });
    await db.connect();
    const namespace = { stream: auth.config.NATS_STREAM, subjectPrefix: auth.config.NATS_SUBJECT_PREFIX };
    bus = await EventBus.connect({ url: testNatsUrl(), namespace, name: "auth-erasure-test", logger: createLogger("test", "silent") });
    erasures = await EventRecorder.start({ subjects: ["docex.user.>"], since: new Date(), namespace, label: "erasures" });
  });

  after(async () => {
    await erasures?.stop();
    await bus?.close();
    await db?.end();
    await auth?.stop();
  });

  /** What the auth database holds of the person: the user row, the self-registration, and what names them elsewhere. */
  async function rowsOf(userId: string, email: string) {
    const one = async (sql: string, bind: unknown[]) => (await db.query(sql, bind)).rows;
    return {
      user: (
        await one(
          "SELECT email, name, status, password_hash IS NOT NULL AS password, erased_at IS NOT NULL AS erased FROM users WHERE id = $1",
          [userId],
        )
      )[0],
      onboarding: (await one("SELECT phone, company FROM onboardings WHERE user_id = $1", [userId]))[0],
      liveSessions: Number(
        (await one("SELECT count(*) AS n FROM refresh_families WHERE user_id = $1 AND revoked_at IS NULL", [userId]))[0].n,
      ),
      secrets: Number((await one("SELECT count(*) AS n FROM one_time_secrets WHERE user_id = $1", [userId]))[0].n),
      publishedWithEmail: Number(
        (
          await one(
            "SELECT count(*) AS n FROM outbox WHERE published_at IS NOT NULL AND (payload->'data'->>'email' = $1 OR payload->'data'->>'recipient' = $1)",
            [email],
          )
        )[0].n,
      ),
    };
  }

  it("erases the caller's name and email, revokes every session and refuses every later sign-in; published once", async () => {
    const email = newEmail("erase-me");
    const { tokens, userId } = await auth.onboard(email, PASSWORD);
    const { access_token: accessToken, refresh_token: refreshToken } = tokens.body.data;
    await eventually(async () => ((await rowsOf(userId, email)).publishedWithEmail > 0 ? true : undefined), 10_000);
    const before = await rowsOf(userId, email);
    expect(before.user).to.include({ email, status: "active", password: true, erased: false });
    expect(before.onboarding.phone).to.not.equal("");
    expect(before.liveSessions).to.be.greaterThan(0);

    expect((await auth.call("DELETE", "/auth/me")).status).to.equal(401);
    const erased = await auth.call("DELETE", "/auth/me", { bearer: accessToken });
    expect(erased.status).to.equal(204);

    const after = await rowsOf(userId, email);
    expect(after.user.email).to.match(/^erased-[0-9a-f-]{36}@erased\.invalid$/);
    expect(after.user).to.include({ name: "", status: "deactivated", password: false, erased: true });
    expect(after.onboarding).to.deep.equal({ phone: "", company: null });
    expect(after).to.include({ liveSessions: 0, secrets: 0, publishedWithEmail: 0 });

    expect((await auth.call("POST", "/auth/login", { body: { email, password: PASSWORD }, address: newAddress() })).status).to.equal(401);
    expect((await auth.call("POST", "/auth/refresh", { body: { refresh_token: refreshToken }, address: newAddress() })).status).to.equal(
      401,
    );
    // The access token still verifies until it expires, but names an account that is gone.
    expect((await auth.call("DELETE", "/auth/me", { bearer: accessToken })).status).to.equal(401);
    expect((await auth.call("POST", "/auth/totp", { bearer: accessToken })).status).to.equal(401);

    const published = await erasures.waitFor((recorded) => recorded.event.type === "user.personal_data_erased");
    expect(published.event).to.deep.include({ organization_id: null, actor_user_id: userId, data: { user_id: userId } });
    expect(JSON.stringify(published.event)).not.to.include(email);
    expect(erasures.matching((recorded) => recorded.event.type === "user.personal_data_erased")).to.have.length(1);
  });

  it("member.personal_data_erased erases the account only when the person was in no other organization", async () => {
    const kept = await auth.onboard(newEmail("kept"), PASSWORD);
    const goneEmail = newEmail("gone");
    const gone = await auth.onboard(goneEmail, PASSWORD);
    const organizationId = "6f1c2a3e-0b4d-4c5e-8f60-718293a4b5c6";
    for (const [userId, accountErased] of [
      [kept.userId, false],
      [gone.userId, true],
    ] as const) {
      const event = createEvent("member.personal_data_erased", {
        organization_id: organizationId,
        data: { organization_id: organizationId, user_id: userId, account_erased: accountErased },
      });
      await bus.publish("docex.member.personal_data_erased", event, { msgId: event.id });
    }
    const after = await eventually(async () => {
      const rows = await rowsOf(gone.userId, goneEmail);
      return rows.user.erased ? rows : undefined;
    }, 10_000);
    expect(after.user).to.include({ name: "", status: "deactivated", password: false });
    expect(after.liveSessions).to.equal(0);
    const stays = (await db.query("SELECT status, erased_at FROM users WHERE id = $1", [kept.userId])).rows[0];
    expect(stays).to.deep.equal({ status: "active", erased_at: null });
    // Only the person's own erasure is announced by auth: the owner's was announced by membership.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(erasures.matching((recorded) => (recorded.event.data as { user_id?: string }).user_id === gone.userId)).to.deep.equal([]);
  });
});
