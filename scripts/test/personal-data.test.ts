import { randomUUID } from "node:crypto";
import { databaseUrl } from "@docex/kit/db";
import { eventually, RecordingReceiver, testDatabaseServerUrl, tokenIn } from "@docex/testkit";
import { buildInvoiceCorpus, type CorpusDocument } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import pg from "pg";
import { type Answer, Stack } from "./support/stack.js";

const DAY_MS = 24 * 3600 * 1000;

/**
 * Issue 39, item 15, through the gateway against the whole stack: a queue's document_lifetime_days purges old
 * documents from every service's database, and erasing a person leaves no name or email of theirs in any, the rows
 * counted before and after as the queue-deletion test counts the document database's.
 */
describe("personal data has a lifetime: document purge and erasure of a person in every service's database", function () {
  this.timeout(180_000);
  let stack: Stack;
  let token = "";
  const databases = new Map<string, pg.Client>();
  const dataOf = (answer: Answer, status: number) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    return answer.body.data;
  };
  const subjectOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString("utf8")).sub;

  before(async function () {
    this.timeout(200_000);
    // A stack of its own: the lifetime sweep every half second instead of every hour.
    stack = await Stack.start({ env: { DOCUMENT_LIFETIME_SWEEP_INTERVAL_MS: "500" } });
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
  });

  after(async () => {
    for (const client of databases.values()) await client.end();
    await stack?.dispose();
  });

  async function database(service: string): Promise<pg.Client> {
    let client = databases.get(service);
    if (!client) {
      client = new pg.Client({ connectionString: databaseUrl(testDatabaseServerUrl(), `${stack.namespace}_${service}`) });
      await client.connect();
      databases.set(service, client);
    }
    return client;
  }

  async function count(service: string, sql: string, bind: unknown[]): Promise<number> {
    const { rows } = await (await database(service)).query<{ n: string }>(sql, bind);
    return Number(rows[0]?.n ?? 0);
  }

  /** A new user invited by the owner with `role`, who set a password from the mail; their email, id and token. */
  async function member(organizationId: string, role: string) {
    const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
    dataOf(
      await stack.call("POST", `/organizations/${organizationId}/assign-roles`, { token, body: [{ operation: "invite", email, role }] }),
      200,
    );
    const invitation = tokenIn(await stack.mail.waitForMail(email, 1, 15_000));
    const tokens = dataOf(
      await stack.call("POST", "/auth/change-password", { body: { token: invitation, password: "a long enough password" } }),
      200,
    );
    return { email, id: subjectOf(tokens.access_token) as string, token: tokens.access_token as string };
  }

  describe("a queue's document_lifetime_days", () => {
    /** Rows naming the documents in each service's database (only those that have some). */
    async function rowsOf(documentIds: string[]): Promise<Record<string, number>> {
      const ids = [documentIds];
      const counts: Record<string, number> = {
        "document.documents": await count("document", "SELECT count(*) AS n FROM documents WHERE id = ANY($1::uuid[])", ids),
        "document.document_changes": await count(
          "document",
          "SELECT count(*) AS n FROM document_changes WHERE document_id = ANY($1::uuid[])",
          ids,
        ),
        "document.file_chunks": await count("document", "SELECT count(*) AS n FROM file_chunks WHERE file_key = ANY($1::text[])", ids),
        "extraction.extraction_runs": await count(
          "extraction",
          "SELECT count(*) AS n FROM extraction_runs WHERE document_id = ANY($1::uuid[])",
          ids,
        ),
        "automation.document_runs": await count(
          "automation",
          "SELECT count(*) AS n FROM document_runs WHERE document_id = ANY($1::uuid[])",
          ids,
        ),
        "learning.learned_fills": await count(
          "learning",
          "SELECT count(*) AS n FROM learned_fills WHERE document_id = ANY($1::uuid[])",
          ids,
        ),
        "webhook.deliveries": await count(
          "webhook",
          "SELECT count(*) AS n FROM deliveries WHERE (body::jsonb ->> 'document_id') = ANY($1::text[])",
          ids,
        ),
        "audit.audit_entries with values": await count(
          "audit",
          "SELECT count(*) AS n FROM audit_entries WHERE document_id = ANY($1::uuid[]) AND erased_at IS NULL",
          ids,
        ),
      };
      return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    }

    it("purges documents older than the lifetime from every service's database; the audit log keeps their entries without values", async () => {
      const receiver = await RecordingReceiver.start();
      try {
        const workspace = dataOf(
          await stack.call("POST", "/workspaces", { token, body: { organization_id: "bootstrap", name: "Lifetime" } }),
          201,
        );
        const queueId = dataOf(
          await stack.call("POST", "/queues", { token, body: { workspace_id: workspace.id, name: "Kept 30 days" } }),
          201,
        ).id;
        dataOf(
          await stack.call("POST", "/webhooks", {
            token,
            body: { url: `${receiver.url}/events`, entity_type: "queue", entity_id: queueId },
          }),
          201,
        );
        const corpus: CorpusDocument[] = await buildInvoiceCorpus({ einvoices: 0, textPdfs: 2, offset: 7_000 });
        const documentIds: string[] = [];
        for (const pdf of corpus) {
          const form = new FormData();
          form.set("file", new Blob([pdf.bytes]), pdf.name);
          const response = await fetch(`${stack.gateway}/api/v2/queues/${queueId}/documents`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}` },
            body: form,
          });
          expect(response.status).to.equal(201);
          documentIds.push(((await response.json()) as { data: { id: string } }).data.id);
        }
        const [old, young] = documentIds as [string, string];
        // Every service has recorded something of the old document before it is purged.
        const before = await eventually(
          async () => {
            const rows = await rowsOf([old]);
            return Object.keys(rows).length === 8 ? rows : undefined;
          },
          90_000,
          500,
        );
        expect(Object.keys(before)).to.have.length(8);
        await eventually(async () => (Object.keys(await rowsOf([young])).length >= 6 ? true : undefined), 60_000, 500);

        await (await database("document")).query("UPDATE documents SET created_at = $2 WHERE id = $1", [
          old,
          new Date(Date.now() - 40 * DAY_MS),
        ]);
        const patched = dataOf(await stack.call("PATCH", `/queues/${queueId}`, { token, body: { document_lifetime_days: 30 } }), 200);
        expect(patched.document_lifetime_days).to.equal(30);

        const after = await eventually(
          async () => {
            const rows = await rowsOf([old]);
            return Object.keys(rows).length === 0 ? rows : undefined;
          },
          30_000,
          500,
        );
        expect(after).to.deep.equal({});
        expect(await count("audit", "SELECT count(*) AS n FROM audit_entries WHERE document_id = $1", [old])).to.be.greaterThan(0);
        expect((await stack.call("GET", `/documents/${old}`, { token })).status).to.equal(404);
        expect((await stack.call("GET", `/documents/${young}`, { token })).status).to.equal(200);
        expect(Object.keys(await rowsOf([young])).length).to.be.at.least(6);
        const audited = await eventually(async () => {
          const log = await stack.call("GET", "/organizations/bootstrap/audit-log?type=documents", { token });
          return log.body.data?.find((entry: { queue_id: string }) => entry.queue_id === queueId);
        }, 10_000);
        expect(audited).to.deep.include({
          type: "documents.purged",
          user_id: null,
          details: { workspace_id: workspace.id, document_ids: [old] },
        });
      } finally {
        await receiver.stop();
      }
    });

    it("refuses a lifetime outside 1..3650 days with 400 through the gateway, and changes nothing", async () => {
      const workspace = dataOf(
        await stack.call("POST", "/workspaces", { token, body: { organization_id: "bootstrap", name: "Bad lifetime" } }),
        201,
      );
      const queueId = dataOf(await stack.call("POST", "/queues", { token, body: { workspace_id: workspace.id, name: "Q" } }), 201).id;
      for (const bad of [0, 3651, "7", 2.5]) {
        const answer = await stack.call("PATCH", `/queues/${queueId}`, { token, body: { document_lifetime_days: bad } });
        expect(answer.status, String(bad)).to.equal(400);
        expect(answer.headers.get("content-type")).to.match(/problem\+json/);
      }
      expect(dataOf(await stack.call("GET", `/queues/${queueId}`, { token }), 200).document_lifetime_days).to.equal(null);
    });
  });

  describe("erasure of a person", () => {
    /** What each service's database holds of the person: rows with their email or name, and audit entries with values. */
    async function personalRows(userId: string, email: string): Promise<Record<string, number>> {
      const counts: Record<string, number> = {
        "auth.users with the email": await count("auth", "SELECT count(*) AS n FROM users WHERE email = $1 OR (id = $2 AND name <> '')", [
          email,
          userId,
        ]),
        "auth.live sessions": await count("auth", "SELECT count(*) AS n FROM refresh_families WHERE user_id = $1 AND revoked_at IS NULL", [
          userId,
        ]),
        "membership.member_profiles": await count(
          "membership",
          "SELECT count(*) AS n FROM member_profiles WHERE user_id = $1 AND (email = $2 OR coalesce(name, '') <> '')",
          [userId, email],
        ),
        "membership.memberships with the email": await count(
          "membership",
          "SELECT count(*) AS n FROM memberships WHERE invited_email = $1",
          [email],
        ),
        "audit.audit_entries with values": await count(
          "audit",
          "SELECT count(*) AS n FROM audit_entries WHERE user_id = $1 AND erased_at IS NULL AND type <> 'member.personal_data_erased' AND type <> 'user.personal_data_erased' AND type <> 'membership.changed'",
          [userId],
        ),
      };
      return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    }

    it("an owner erases a member of their organization (others: 403, another organization: 404); the account goes too", async () => {
      const organizationId = dataOf(
        await stack.call("POST", "/organizations", { token, body: { name: `Erasure ${stack.namespace}` } }),
        201,
      ).id;
      const person = await member(organizationId, "editor");
      const colleague = await member(organizationId, "admin");
      expect(
        (await stack.call("POST", "/auth/login", { body: { email: person.email, password: "a long enough password" } })).status,
      ).to.equal(200);
      const before = await eventually(
        async () => {
          const rows = await personalRows(person.id, person.email);
          return rows["audit.audit_entries with values"] ? rows : undefined;
        },
        20_000,
        250,
      );
      expect(before).to.include.keys("auth.users with the email", "auth.live sessions", "audit.audit_entries with values");

      const path = `/organizations/${organizationId}/members/${person.id}/personal-data`;
      expect((await stack.call("DELETE", path, { token: colleague.token })).status).to.equal(403);
      const strangerOrganization = dataOf(
        await stack.call("POST", "/organizations", { token, body: { name: `Other ${stack.namespace}` } }),
        201,
      ).id;
      expect(
        (await stack.call("DELETE", `/organizations/${strangerOrganization}/members/${person.id}/personal-data`, { token })).status,
      ).to.equal(404);
      expect((await stack.call("DELETE", path, { token: person.token })).status).to.equal(403);
      expect(await personalRows(person.id, person.email)).to.deep.equal(before);

      expect((await stack.call("DELETE", path, { token })).status).to.equal(204);
      const after = await eventually(
        async () => {
          const rows = await personalRows(person.id, person.email);
          return Object.keys(rows).length === 0 ? rows : undefined;
        },
        20_000,
        250,
      );
      expect(after).to.deep.equal({});
      expect(
        (await stack.call("POST", "/auth/login", { body: { email: person.email, password: "a long enough password" } })).status,
      ).to.equal(401);
      const listed = dataOf(await stack.call("GET", `/organizations/${organizationId}/raw-memberships`, { token }), 200);
      expect(listed.find((found: { user_id: string }) => found.user_id === person.id)).to.include({
        status: "deactivated",
        email: null,
        name: null,
      });
      const audited = await eventually(async () => {
        const log = await stack.call("GET", `/organizations/${organizationId}/audit-log?type=member`, { token });
        return log.body.data?.find((entry: { type: string }) => entry.type === "member.personal_data_erased");
      }, 10_000);
      expect(audited.details).to.deep.equal({ erased_user_id: person.id, account_erased: true });
      // The colleague is untouched.
      expect(Object.keys(await personalRows(colleague.id, colleague.email))).to.include("auth.users with the email");
    });

    it("DELETE /auth/me erases the caller everywhere; the account signs in no more", async () => {
      const organizationId = dataOf(
        await stack.call("POST", "/organizations", { token, body: { name: `Self ${stack.namespace}` } }),
        201,
      ).id;
      const person = await member(organizationId, "viewer");
      const before = await eventually(
        async () => {
          const rows = await personalRows(person.id, person.email);
          return rows["audit.audit_entries with values"] ? rows : undefined;
        },
        20_000,
        250,
      );
      expect(before).to.include.keys("auth.users with the email", "membership.member_profiles");
      expect((await stack.call("DELETE", "/auth/me")).status).to.equal(401);
      expect((await stack.call("DELETE", "/auth/me", { token: person.token })).status).to.equal(204);
      const after = await eventually(
        async () => {
          const rows = await personalRows(person.id, person.email);
          return Object.keys(rows).length === 0 ? rows : undefined;
        },
        20_000,
        250,
      );
      expect(after).to.deep.equal({});
      expect(
        (await stack.call("POST", "/auth/login", { body: { email: person.email, password: "a long enough password" } })).status,
      ).to.equal(401);
      const listed = dataOf(await stack.call("GET", `/organizations/${organizationId}/raw-memberships`, { token }), 200);
      expect(listed.find((found: { user_id: string }) => found.user_id === person.id)).to.include({ status: "deactivated", email: null });
    });
  });
});
