import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createEvent } from "@docex/events";
import { databaseUrl, openDatabase, runMigrations, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, eventually, testDatabaseServerUrl } from "@docex/testkit";
import { expect } from "chai";
import { importMembershipAudit } from "../src/store/membership-import.js";
import { migrations } from "../src/store/migrations.js";
import { AuditHarness } from "./support/harness.js";

const ENTRY = "../src/import-membership-audit.ts";

describe("importing the audit log membership recorded before the audit service existed", function () {
  this.timeout(60_000);
  let h: AuditHarness;
  let team: Awaited<ReturnType<AuditHarness["team"]>>;
  let other: Awaited<ReturnType<AuditHarness["team"]>>;
  let membership: Sql;
  let audit: Sql;

  before(async () => {
    h = await AuditHarness.start();
    [team, other] = [await h.team([]), await h.team([])];
    audit = await openDatabase(databaseUrl(testDatabaseServerUrl(), h.config.DATABASE_NAME), {
      logger: createLogger("audit-test", "silent"),
    });
    membership = await openDatabase(databaseUrl(testDatabaseServerUrl(), h.membershipDatabase), {
      logger: createLogger("audit-test", "silent"),
    });
    // Nothing to copy from a membership database created after the move: it has no audit tables.
    expect(await importMembershipAudit(membership, audit)).to.deep.equal({ read: 0, added: 0 });
    // One migrated before the move has them, as membership's migrations 0002 and 0003 created them: the same tables
    // as this service's own 0001.
    await runMigrations(membership, migrations, createLogger("audit-import-test", "silent"));
  });

  after(async () => {
    await membership?.close();
    await audit?.close();
    await h?.stop();
  });

  const rows = <T extends object>(db: Sql, sql: string, bind: unknown[] = []) => db.rows<T>(sql, bind);

  /** An entry as membership's consumer wrote it into membership's own tables (its migrations 0002 and 0003). */
  async function recordedByMembership(entry: { eventId: string; organizationId: string | null; type: string; documentId?: string }) {
    await membership.run(
      `INSERT INTO audit_entries (event_id, organization_id, type, occurred_at, user_id, request_id, document_id, queue_id, details, recorded_at)
       VALUES ($1, $2, $3, now() - interval '30 days', $4, 'req-old', $5, NULL, '{"file_name": "old.pdf"}', now() - interval '30 days')`,
      [entry.eventId, entry.organizationId, entry.type, team.owner.id, entry.documentId ?? null],
    );
    if (entry.organizationId) {
      await membership.run(
        `INSERT INTO audit_counts (organization_id, type, entries) VALUES ($1, $2, 1)
         ON CONFLICT (organization_id, type) DO UPDATE SET entries = audit_counts.entries + 1`,
        [entry.organizationId, entry.type],
      );
    }
  }

  it("copies every entry once, keeps counts exact, and adds nothing when run again or for what the consumer re-derived", async () => {
    // One event the new consumer has already recorded from the stream, as after its first start.
    const documentId = randomUUID();
    const seen = createEvent("document.created", {
      organization_id: team.organization.id,
      data: {
        organization_id: team.organization.id,
        document_id: documentId,
        queue_id: randomUUID(),
        workspace_id: randomUUID(),
        file_name: "old.pdf",
        file_sha256: "c".repeat(64),
      },
      actor_user_id: team.owner.id,
    });
    await h.bus.publish(`docex.${seen.type}`, seen, { msgId: seen.id });
    await eventually(async () =>
      (await rows(audit, "SELECT 1 FROM audit_entries WHERE event_id = $1", [seen.id])).length ? true : undefined,
    );

    const login = randomUUID();
    const stranger = randomUUID();
    await recordedByMembership({ eventId: seen.id, organizationId: team.organization.id, type: "document.created", documentId });
    await recordedByMembership({ eventId: login, organizationId: team.organization.id, type: "auth.login_attempted" });
    await recordedByMembership({ eventId: login, organizationId: other.organization.id, type: "auth.login_attempted" });
    await recordedByMembership({ eventId: stranger, organizationId: null, type: "auth.login_attempted" });

    expect(await importMembershipAudit(membership, audit)).to.deep.equal({ read: 4, added: 3 });
    expect(await importMembershipAudit(membership, audit)).to.deep.equal({ read: 4, added: 0 });

    const copied = await rows<{ organization_id: string | null; request_id: string }>(
      audit,
      "SELECT organization_id, request_id FROM audit_entries WHERE event_id = ANY($1::uuid[]) ORDER BY organization_id NULLS LAST",
      [[login, stranger]],
    );
    expect(copied).to.have.length(3);
    expect(copied.every((row) => row.request_id === "req-old")).to.equal(true);
    const counts = await rows<{ entries: number; actual: number }>(
      audit,
      `SELECT c.entries::int AS entries, (SELECT count(*)::int FROM audit_entries e
         WHERE e.organization_id = c.organization_id AND e.type = c.type) AS actual FROM audit_counts c`,
    );
    for (const row of counts) expect(row.entries).to.equal(row.actual);

    // Read through the API as before the move: the owner sees the login, with its organization's total.
    const answer = await h.call("GET", `/organizations/${team.organization.id}/audit-log?type=auth`, { as: team.owner });
    expect(answer.status).to.equal(200);
    expect(answer.body.data.map((entry: { id: string }) => entry.id)).to.deep.equal([login]);
    expect(answer.body.pagination.total).to.equal(1);
  });

  it("runs as a one-shot command that migrates the audit database first", async () => {
    const fresh = `${h.config.DATABASE_NAME}_fresh`;
    const env = {
      ...process.env,
      DATABASE_URL: testDatabaseServerUrl(),
      DATABASE_NAME: fresh,
      MEMBERSHIP_AUDIT_DATABASE_URL: databaseUrl(testDatabaseServerUrl(), h.membershipDatabase),
      LOG_LEVEL: "silent",
    };
    const entry = fileURLToPath(new URL(ENTRY, import.meta.url));
    try {
      await promisify(execFile)(process.execPath, ["--import", "tsx", entry], { env });
      const target = await openDatabase(databaseUrl(testDatabaseServerUrl(), fresh), { logger: createLogger("audit-test", "silent") });
      try {
        const [found] = await rows<{ n: number }>(target, "SELECT count(*)::int AS n FROM audit_entries");
        const [source] = await rows<{ n: number }>(membership, "SELECT count(*)::int AS n FROM audit_entries");
        expect(found!.n).to.equal(source!.n);
      } finally {
        await target.close();
      }
    } finally {
      await dropDatabase(fresh);
    }
  });
});
