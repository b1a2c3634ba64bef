import { randomUUID } from "node:crypto";
import type { Annotation } from "@docex/annotations";
import { createEvent, type DocexEvent } from "@docex/events";
import { openDatabase, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { eventually } from "@docex/testkit";
import { expect } from "chai";
import { AuditLog } from "../src/domain/audit-log.js";
import { AuditStore } from "../src/store/audit-store.js";
import { AuditHarness, type Person } from "./support/harness.js";

describe("audit log: one consumer of every event, read by owners and supervisors", () => {
  let h: AuditHarness;
  let team: Awaited<ReturnType<AuditHarness["team"]>>;
  let supervisor: Person;
  let admin: Person;
  let stranger: Awaited<ReturnType<AuditHarness["team"]>>;
  let database: Sql;
  const queueId = randomUUID();
  const workspaceId = randomUUID();

  before(async () => {
    h = await AuditHarness.start();
    team = await h.team(["supervisor", "admin"]);
    [supervisor, admin] = team.members as [Person, Person];
    stranger = await h.team([]);
    const url = new URL(h.config.DATABASE_URL);
    url.pathname = `/${h.config.DATABASE_NAME}`;
    database = await openDatabase(url.toString(), { logger: createLogger("audit-test", "silent") });
  });

  after(async () => {
    await database?.close();
    await h?.stop();
  });

  const publish = (event: DocexEvent, msgId = event.id) => h.bus.publish(`docex.${event.type}`, event, { msgId });
  const organizationLog = (as: Person, query = "", organizationId = team.organization.id) =>
    h.call("GET", `/organizations/${organizationId}/audit-log${query}`, { as });
  const documentLog = (as: Person, documentId: string, query = "") => h.call("GET", `/documents/${documentId}/audit-log${query}`, { as });

  async function untilLogged(as: Person, documentId: string, count: number) {
    return eventually(async () => {
      const answer = await documentLog(as, documentId);
      return answer.status === 200 && answer.body.data.length >= count ? answer : undefined;
    }, 10_000);
  }

  const rowsOf = (sql: string, bind: unknown[]) => database.rows<Record<string, unknown>>(sql, bind);

  const annotation = (key: string, value: string): Annotation => ({ key, value });

  function documentHistory(documentId: string, organizationId = team.organization.id): DocexEvent[] {
    const where = { document_id: documentId, queue_id: queueId, workspace_id: workspaceId };
    const before = [annotation("invoice_id", "INV-1"), annotation("total_due", "100")];
    const after = [annotation("invoice_id", "INV-1"), annotation("total_due", "120"), annotation("iban", "CZ65")];
    const events = [
      createEvent("document.created", {
        organization_id: organizationId,
        data: { ...where, organization_id: organizationId, file_name: "a.pdf", file_sha256: "b".repeat(64) },
        actor_user_id: team.owner.id,
        request_id: "req-upload",
      }),
      createEvent("document.annotations_changed", {
        organization_id: organizationId,
        data: { ...where, user_id: supervisor.id, previous_annotations: before, annotations: after, version: 2 },
        request_id: "req-edit",
      }),
      createEvent("document.status_changed", {
        organization_id: organizationId,
        data: { ...where, status: "ready_to_export", previous_status: "to_validate", user_id: supervisor.id },
        actor_user_id: supervisor.id,
        request_id: "req-confirm",
      }),
    ];
    // A millisecond apart, so that the order by time is the order of the history (equal times fall back to the id).
    const start = Date.now() - 1_000;
    return events.map((event, i) => ({ ...event, occurred_at: new Date(start + i).toISOString() }));
  }

  it("records a document's history once, with who, what (before and after) and the request; redelivery adds nothing", async () => {
    const documentId = randomUUID();
    const events = documentHistory(documentId);
    for (const event of events) await publish(event);
    await publish(events[1]!, randomUUID()); // the same event again, past the stream's duplicate window

    const answer = await untilLogged(team.owner, documentId, 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { data, pagination } = (await documentLog(team.owner, documentId, "?order=asc")).body;
    expect(pagination).to.include({ total: 3, page: 1 });
    expect(answer.body.data.map((entry: { type: string }) => entry.type)).to.deep.equal([
      "document.status_changed",
      "document.annotations_changed",
      "document.created",
    ]);
    const [created, edited, confirmed] = data;
    expect(created).to.deep.include({
      id: events[0]!.id,
      organization_id: team.organization.id,
      user_id: team.owner.id,
      request_id: "req-upload",
      document_id: documentId,
      queue_id: queueId,
      details: { workspace_id: workspaceId, file_name: "a.pdf", file_sha256: "b".repeat(64) },
    });
    expect(edited).to.deep.include({ user_id: supervisor.id, request_id: "req-edit" });
    expect(edited.details).to.deep.equal({
      version: 2,
      changes: [
        { key: "total_due", before: { key: "total_due", value: "100" }, after: { key: "total_due", value: "120" } },
        { key: "iban", before: null, after: { key: "iban", value: "CZ65" } },
      ],
    });
    expect(confirmed).to.deep.include({ user_id: supervisor.id, details: { from: "to_validate", to: "ready_to_export" } });
    expect((await documentLog(supervisor, documentId)).body.data).to.have.length(3);
  });

  it("answers 403 to other roles, 404 to other organizations and to ids that are not documents", async () => {
    const documentId = randomUUID();
    for (const event of documentHistory(documentId)) await publish(event);
    await untilLogged(team.owner, documentId, 3);

    const forbidden = await documentLog(admin, documentId);
    expect(forbidden.status).to.equal(403);
    expect(forbidden.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect((await organizationLog(admin)).status).to.equal(403);

    for (const answer of [
      await documentLog(stranger.owner, documentId),
      await documentLog(team.owner, randomUUID()),
      await documentLog(team.owner, "not-a-uuid"),
      await organizationLog(stranger.owner),
      await organizationLog(team.owner, "", randomUUID()),
    ]) {
      expect(answer.status).to.equal(404);
      expect(answer.body.type).to.be.a("string");
    }
    expect((await h.call("GET", `/documents/${documentId}/audit-log`)).status).to.equal(401);
    expect((await h.call("POST", `/documents/${documentId}/audit-log`, { as: team.owner, body: {} })).status).to.equal(405);
  });

  it("shows role changes and user-schema changes with the acting user and the values before and after", async () => {
    const member = h.person("audited-editor");
    const invited = await h.call("POST", `/organizations/${team.organization.id}/assign-roles`, {
      as: team.owner,
      body: [{ operation: "invite", email: member.email, role: "editor" }],
    });
    expect(invited.status).to.equal(200);
    const schema = await h.call("POST", `/organizations/${team.organization.id}/manage-user-schema`, {
      as: supervisor,
      body: { user_id: member.id, fields: [{ key: "iban", hidden: true }] },
    });
    expect(schema.status).to.equal(200);

    const roles = await eventually(async () => {
      const answer = await organizationLog(team.owner, "?type=membership.changed&page_size=100");
      return answer.body.data.find((entry: { details: { member_user_id: string } }) => entry.details.member_user_id === member.id);
    }, 10_000);
    expect(roles).to.deep.include({ user_id: team.owner.id, type: "membership.changed" });
    expect(roles.details).to.include({ role: "editor", previous_role: null });

    const schemaEntry = await eventually(async () => {
      const answer = await organizationLog(supervisor, `?type=configuration&user_id=${supervisor.id}`);
      return answer.body.data[0];
    }, 10_000);
    expect(schemaEntry.details).to.deep.equal({
      resource: "user_schema",
      resource_id: member.id,
      change: "updated",
      previous: { user_id: member.id, fields: [] },
      current: { user_id: member.id, fields: [{ key: "iban", hidden: true, readonly: false }] },
    });
  });

  it("puts a member's logins, failed ones too, in every organization of the member, and a stranger's in none", async () => {
    const login = (userId: string | null, email: string, succeeded: boolean) =>
      createEvent("auth.login_attempted", {
        organization_id: null,
        data: { user_id: userId, email, method: "pwd", succeeded, failure: succeeded ? null : "invalid_credentials" },
        actor_user_id: userId,
      });
    const failed = login(team.owner.id, team.owner.email, false);
    const nobody = login(null, "nobody@example.test", false);
    await publish(failed);
    await publish(nobody);
    const entry = await eventually(async () => {
      const answer = await organizationLog(team.owner, "?type=auth");
      return answer.body.data.find((found: { id: string }) => found.id === failed.id);
    }, 10_000);
    expect(entry).to.deep.include({
      user_id: team.owner.id,
      details: { email: team.owner.email, method: "pwd", succeeded: false, failure: "invalid_credentials" },
    });
    const others = await organizationLog(stranger.owner, "?type=auth.login_attempted", stranger.organization.id);
    expect(others.status, JSON.stringify(others.body)).to.equal(200);
    expect(others.body.data.map((found: { id: string }) => found.id)).to.not.include.members([failed.id, nobody.id]);
    const stored = await eventually(async () => {
      const rows = await rowsOf("SELECT organization_id FROM audit_entries WHERE event_id = $1", [nobody.id]);
      return rows.length ? rows : undefined;
    }, 10_000);
    expect(stored).to.deep.equal([{ organization_id: null }]);
  });

  it("filters by type, user and time, and pages", async () => {
    const documentId = randomUUID();
    for (const event of documentHistory(documentId)) await publish(event);
    await untilLogged(team.owner, documentId, 3);

    const ofSupervisor = (await documentLog(team.owner, documentId, `?user_id=${supervisor.id}`)).body.data;
    expect(ofSupervisor.map((entry: { type: string }) => entry.type).sort()).to.deep.equal([
      "document.annotations_changed",
      "document.status_changed",
    ]);
    const statuses = (await documentLog(team.owner, documentId, "?type=document.status_changed,document.created")).body.data;
    expect(statuses).to.have.length(2);
    const paged = (await documentLog(team.owner, documentId, "?page=2&page_size=2")).body;
    expect(paged.data).to.have.length(1);
    expect(paged.pagination).to.deep.equal({ page: 2, page_size: 2, total: 3, total_pages: 2 });

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await documentLog(team.owner, documentId, `?from=${encodeURIComponent(future)}`)).body.data).to.have.length(0);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect(
      (await documentLog(team.owner, documentId, `?from=${encodeURIComponent(past)}&to=${encodeURIComponent(future)}`)).body.data,
    ).to.have.length(3);
  });

  it("answers 400 problem+json naming the parameter for bad filters", async () => {
    const cases: Array<[string, string]> = [
      ["?type=passwords", "type"],
      ["?type=document.deleted_forever", "type"],
      ["?user_id=me", "user_id"],
      ["?from=yesterday", "from"],
      ["?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "to"],
      ["?page=0", "page"],
      ["?page_size=101", "page_size"],
      ["?order=sideways", "order"],
    ];
    for (const [query, field] of cases) {
      const answer = await organizationLog(team.owner, query);
      expect(answer.status, query).to.equal(400);
      expect(answer.headers.get("content-type")).to.match(/^application\/problem\+json/);
      expect(
        answer.body.errors.map((error: { path: string }) => error.path),
        query,
      ).to.include(field);
    }
  });

  it("is append-only: updates and deletes are refused; only the retention purge removes entries, and only old ones", async () => {
    const documentId = randomUUID();
    const [created] = documentHistory(documentId);
    const old = { ...created!, id: randomUUID(), occurred_at: new Date(Date.now() - 400 * 24 * 3600 * 1000).toISOString() };
    await publish(created!);
    await publish(old as DocexEvent);
    await eventually(
      async () => ((await rowsOf("SELECT 1 FROM audit_entries WHERE document_id = $1", [documentId])).length === 2 ? true : undefined),
      10_000,
    );

    for (const statement of [
      "UPDATE audit_entries SET user_id = NULL WHERE document_id = $1",
      "DELETE FROM audit_entries WHERE document_id = $1",
    ]) {
      let refused: Error | undefined;
      try {
        await database.run(statement, [documentId]);
      } catch (error) {
        refused = error as Error;
      }
      expect(refused?.message, statement).to.match(/append-only/);
    }

    // The purge asks membership nothing.
    const auditLog = new AuditLog(new AuditStore(database), undefined as never, 365);
    expect(await auditLog.purgeExpired()).to.be.at.least(1);
    const left = await rowsOf("SELECT event_id FROM audit_entries WHERE document_id = $1", [documentId]);
    expect(left.map((row) => row.event_id)).to.deep.equal([created!.id]);
    // The totals of unfiltered and type-filtered pages come from audit_counts, which the purge kept in step.
    const counts = await rowsOf(
      `SELECT c.organization_id, c.type, c.entries::int AS entries, (SELECT count(*)::int FROM audit_entries e
         WHERE e.organization_id = c.organization_id AND e.type = c.type) AS actual FROM audit_counts c`,
      [],
    );
    expect(counts.length).to.be.greaterThan(0);
    for (const row of counts) expect(row.entries, `${row.organization_id} ${row.type}`).to.equal(row.actual);
    const page = (await organizationLog(team.owner, "?type=document")).body.pagination;
    const exact = await rowsOf("SELECT count(*)::int AS n FROM audit_entries WHERE organization_id = $1 AND type LIKE 'document.%'", [
      team.organization.id,
    ]);
    expect(page.total).to.equal(exact[0]!.n);
  });
});
