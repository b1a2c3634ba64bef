import { randomUUID } from "node:crypto";
import { connectDatabase, runMigrations, type Sql } from "@docex/kit/db";
import { createLogger } from "@docex/kit/logger";
import { dropDatabase, testDatabaseServerUrl, uniqueDatabaseName } from "@docex/testkit";
import { expect } from "chai";
import { validatorOf } from "../src/domain/validation.js";
import { migrations } from "../src/store/migrations.js";
import { ValidatorStore } from "../src/store/validator-store.js";

describe("validation webhooks of the deprecated API as document's configuration: migration 0018 and the store (real Postgres)", function () {
  this.timeout(60_000);
  const database = uniqueDatabaseName("document_validators");
  const logger = createLogger("validator-store-test", "silent");
  let db: Sql;
  let store: ValidatorStore;
  const organizationId = randomUUID();
  const workspaceId = randomUUID();
  const queueId = randomUUID();
  const siblingId = randomUUID();
  const documentId = randomUUID();
  const hook = { document: randomUUID(), queue: randomUUID(), workspace: randomUUID(), organization: randomUUID(), gone: randomUUID() };
  const query = (text: string, bind: unknown[] = []) => db.rows<Record<string, unknown>>(text, bind);

  before(async () => {
    db = await connectDatabase({ serverUrl: testDatabaseServerUrl(), database, logger });
    const before = migrations.findIndex((migration) => migration.name.startsWith("0018-"));
    expect(before).to.be.greaterThan(0);
    // A database as the projection left it before 0018: validation_webhooks followed from the webhook service's events.
    await runMigrations(db, migrations.slice(0, before), logger);
    await query(`INSERT INTO workspaces (id, humanized_id, organization_id, name) VALUES ($1, $2, $3, 'W')`, [
      workspaceId,
      `w-${workspaceId}`,
      organizationId,
    ]);
    for (const id of [queueId, siblingId]) {
      await query(
        `INSERT INTO queues (id, humanized_id, workspace_id, organization_id, name, annotation_schema) VALUES ($1, $2, $3, $4, 'Q', '[]')`,
        [id, `q-${id}`, workspaceId, organizationId],
      );
    }
    await query(
      `INSERT INTO documents (id, queue_id, workspace_id, organization_id, file_name, status) VALUES ($1, $2, $3, $4, 'a.pdf', 'to_validate')`,
      [documentId, queueId, workspaceId, organizationId],
    );
    const projected: Array<[string, string, string, string, boolean]> = [
      [hook.document, "document_validation", "document", documentId, true],
      [hook.queue, "document_validation", "queue", queueId, true],
      [hook.workspace, "initial_document_validation", "workspace", workspaceId, true],
      [hook.organization, "document_validation", "organization", organizationId, true],
      // A queue that no longer exists here.
      [hook.gone, "document_validation", "queue", randomUUID(), true],
    ];
    for (const [id, type, entityType, entityId, present] of projected) {
      await query(
        `INSERT INTO validation_webhooks (webhook_id, type, entity_type, entity_id, present, changed_at) VALUES ($1, $2, $3, $4, $5, now())`,
        [id, type, entityType, entityId, present],
      );
    }
    await query(`INSERT INTO validator_notes (entity_type, entity_id, type, noted_at) VALUES ('queue', $1, 'document_validation', now())`, [
      queueId,
    ]);
    await runMigrations(db, migrations, logger);
    store = new ValidatorStore(db);
  });

  after(async () => {
    await db?.close();
    await dropDatabase(database);
  });

  it("places every migrated webhook in the hierarchy, drops those of entities that are gone, and the notes and seed tables", async () => {
    const rows = await query(
      `SELECT webhook_id, organization_id, workspace_id, queue_id FROM validation_webhooks ORDER BY entity_type, webhook_id`,
    );
    expect(rows).to.deep.equal([
      { webhook_id: hook.document, organization_id: organizationId, workspace_id: workspaceId, queue_id: queueId },
      { webhook_id: hook.organization, organization_id: organizationId, workspace_id: null, queue_id: null },
      { webhook_id: hook.queue, organization_id: organizationId, workspace_id: workspaceId, queue_id: queueId },
      { webhook_id: hook.workspace, organization_id: organizationId, workspace_id: workspaceId, queue_id: null },
    ]);
    const tables = await query(`SELECT relname FROM pg_class WHERE relname IN ('validator_notes', 'validator_projection')`);
    expect(tables).to.deep.equal([]);
  });

  it("a migrated webhook still applies, nearest first: the document's, then the queue's, the workspace's, the organization's", async () => {
    const validators = await store.ofQueue({ id: queueId, workspaceId, organizationId });
    const scope = { documentId, queueId, workspaceId, organizationId };
    expect(validatorOf(validators, "document_validation", scope)).to.deep.equal({ targetId: hook.document, failurePolicy: "allow" });
    expect(validatorOf(validators, "document_validation", { ...scope, documentId: randomUUID() })).to.deep.equal({
      targetId: hook.queue,
      failurePolicy: "allow",
    });
    expect(validatorOf(validators, "initial_document_validation", scope)).to.deep.equal({
      targetId: hook.workspace,
      failurePolicy: "allow",
    });
    const sibling = await store.ofQueue({ id: siblingId, workspaceId, organizationId });
    expect(validatorOf(sibling, "document_validation", { ...scope, queueId: siblingId, documentId: randomUUID() })).to.deep.equal({
      targetId: hook.organization,
      failurePolicy: "allow",
    });
    // A queue's link wins over every webhook.
    const linked = {
      ...validators,
      links: new Map([["document_validation" as const, { targetId: "t", failurePolicy: "block" as const }]]),
    };
    expect(validatorOf(linked, "document_validation", scope)).to.deep.equal({ targetId: "t", failurePolicy: "block" });
  });

  it("keeps the newer state of a webhook: an older one (a late event after the call) changes nothing", async () => {
    const state = {
      webhookId: hook.organization,
      organizationId,
      type: "document_validation" as const,
      entityType: "organization" as const,
      entityId: organizationId,
      queueId: null,
      workspaceId: null,
    };
    expect(await store.record({ ...state, present: false, changedAt: new Date(Date.now() + 1_000) })).to.equal(true);
    expect(await store.record({ ...state, present: true, changedAt: new Date() })).to.equal(false);
    const sibling = await store.ofQueue({ id: siblingId, workspaceId, organizationId });
    expect(sibling.webhooks.map((webhook) => webhook.webhookId)).to.deep.equal([hook.workspace]);
  });
});
