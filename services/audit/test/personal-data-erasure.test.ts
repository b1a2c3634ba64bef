import { randomUUID } from "node:crypto";
import { createEvent, type DocexEvent } from "@docex/events";
import { openDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { AuditHarness } from "./support/harness.js";

describe("audit log: erasing a person keeps their entries' shape without values", () => {
  let h: AuditHarness;
  let database: Sql;

  before(async () => {
    h = await AuditHarness.start();
    const url = new URL(h.config.DATABASE_URL);
    url.pathname = `/${h.config.DATABASE_NAME}`;
    database = await openDatabase(url.toString(), { logger: createLogger("audit-test", "silent") });
  });

  after(async () => {
    await database?.close();
    await h?.stop();
  });

  const publish = (event: DocexEvent) => h.bus.publish(`docex.${event.type}`, event, { msgId: event.id });
  const rowsOf = (sql: string, bind: unknown[]) => database.rows<Record<string, unknown>>(sql, bind);

  /** Entries of `userId` in every organization: their details, and whether they were erased. */
  const entriesOf = (userId: string) =>
    rowsOf(
      "SELECT event_id, organization_id, type, details, erased_at IS NOT NULL AS erased FROM audit_entries WHERE user_id = $1 ORDER BY event_id, organization_id",
      [userId],
    );

  function loginOf(userId: string, email: string) {
    return createEvent("auth.login_attempted", {
      organization_id: null,
      data: { user_id: userId, email, method: "pwd", succeeded: true, failure: null },
      actor_user_id: userId,
    });
  }

  function editBy(userId: string, organizationId: string) {
    return createEvent("document.annotations_changed", {
      organization_id: organizationId,
      data: {
        document_id: randomUUID(),
        queue_id: randomUUID(),
        workspace_id: randomUUID(),
        user_id: userId,
        previous_annotations: [{ key: "supplier_name", value: "Jana Nováková" }],
        annotations: [{ key: "supplier_name", value: "Jana Nováková s.r.o." }],
        version: 2,
      },
      actor_user_id: userId,
    });
  }

  async function untilEntries(userId: string, count: number) {
    return eventually(async () => {
      const rows = await entriesOf(userId);
      return rows.length >= count ? rows : undefined;
    }, 10_000);
  }

  it("an owner's erasure erases the member's entries of that organization only, and records itself with its values", async () => {
    const a = await h.team(["editor"]);
    const b = await h.team([]);
    const person = a.members[0]!;
    const inA = editBy(person.id, a.organization.id);
    const inB = editBy(person.id, b.organization.id);
    for (const event of [loginOf(person.id, person.email), inA, inB]) await publish(event);
    const before = await untilEntries(person.id, 3);
    expect(before.every((row) => row.erased === false)).to.equal(true);

    const erasure = createEvent("member.personal_data_erased", {
      organization_id: a.organization.id,
      data: { organization_id: a.organization.id, user_id: person.id, account_erased: false },
      actor_user_id: a.owner.id,
    });
    await publish(erasure);
    await publish({ ...erasure });
    const after = await eventually(async () => {
      const rows = await entriesOf(person.id);
      return rows.some((row) => row.erased) ? rows : undefined;
    }, 10_000);

    // Same entries, same keys; in organization A no value is left, in B everything stays.
    expect(after.map((row) => row.event_id)).to.deep.equal(before.map((row) => row.event_id));
    const ofA = after.filter((row) => row.organization_id === a.organization.id);
    expect(ofA.length).to.be.at.least(2);
    for (const row of ofA) expect(JSON.stringify(row.details), String(row.type)).not.to.match(/Nováková|@example|"pwd"/);
    const edit = ofA.find((row) => row.event_id === inA.id)!;
    expect(edit.details).to.deep.equal({
      version: null,
      changes: [{ key: null, before: { key: null, value: null }, after: { key: null, value: null } }],
    });
    const keptInB = after.find((row) => row.event_id === inB.id)!;
    expect(keptInB).to.include({ erased: false });
    expect(JSON.stringify(keptInB.details)).to.include("Nováková");

    const recorded = await eventually(async () => {
      const rows = await rowsOf("SELECT user_id, details FROM audit_entries WHERE event_id = $1", [erasure.id]);
      return rows.length ? rows : undefined;
    }, 10_000);
    expect(recorded).to.deep.equal([{ user_id: a.owner.id, details: { erased_user_id: person.id, account_erased: false } }]);
  });

  it("a person's own erasure erases their entries in every organization; the trigger still refuses any other update", async () => {
    const a = await h.team(["editor"]);
    const person = a.members[0]!;
    const elsewhere = randomUUID();
    for (const event of [loginOf(person.id, person.email), editBy(person.id, a.organization.id), editBy(person.id, elsewhere)]) {
      await publish(event);
    }
    const before = await untilEntries(person.id, 3);
    await publish(
      createEvent("user.personal_data_erased", { organization_id: null, data: { user_id: person.id }, actor_user_id: person.id }),
    );
    const after = await eventually(async () => {
      // Entries recorded after the erasure (membership deactivating the person's memberships) are not of the erased past.
      const earlier = new Set(before.map((row) => `${row.event_id} ${row.organization_id}`));
      const rows = (await entriesOf(person.id)).filter((row) => earlier.has(`${row.event_id} ${row.organization_id}`));
      return rows.length === before.length && rows.every((row) => row.erased) ? rows : undefined;
    }, 10_000);
    for (const row of after) expect(JSON.stringify(row.details)).not.to.match(/Nováková|@example|"pwd"/);
    expect(after.find((row) => row.type === "auth.login_attempted")!.details).to.deep.equal({
      email: null,
      method: null,
      succeeded: null,
      failure: null,
    });

    let refused: Error | undefined;
    await database
      .transaction(
        (tx) => database.run(`UPDATE audit_entries SET details = '{"email": "back@example.test"}' WHERE user_id = $1`, [person.id], tx),
        { settings: { "docex.audit_erasure": "on" } },
      )
      .catch((error: Error) => {
        refused = error;
      });
    expect(refused?.message).to.match(/append-only/);
  });
});
