import { expect } from "chai";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

describe("external validation links (real membership in-process; document service played by a gRPC double)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let editor: Person;
  let at: Hierarchy;
  let url: string;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team(["editor"]);
    owner = team.owner;
    [editor] = team.members as [Person];
    at = harness.hierarchy(team.organization.id);
    url = `${(await harness.receiver()).url}/validate`;
    // Signing on needs the organization's key (409 signing_key_missing otherwise).
    await harness.call("POST", `/organizations/${team.organization.id}/webhook-signing-key`, { as: owner });
  });

  after(async () => {
    await harness.stop();
  });

  it("POST creates (201), POST again updates (200); one link per queue and type; GET lists them; DELETE answers 204", async () => {
    const path = `/queues/${at.queueId}/external-validation-links`;
    const created = await harness.call("POST", path, {
      as: owner,
      body: { url, type: "document_validation", signature_verification: "enabled" },
    });
    expect(created.status).to.equal(201);
    expect(created.body.data).to.deep.include({
      queue_id: at.queueId,
      type: "document_validation",
      url,
      signature_verification: "enabled",
    });
    expect(created.body.data.failure_policy).to.equal("allow");
    expect(Object.keys(created.body.data).sort()).to.deep.equal([
      "created_at",
      "failure_policy",
      "queue_id",
      "signature_verification",
      "type",
      "updated_at",
      "url",
      "webhook_id",
    ]);
    expect(created.body.data.webhook_id).to.equal(null);

    const updated = await harness.call("POST", path, { as: owner, body: { url: `${url}/v2`, type: "document_validation" } });
    expect(updated.status).to.equal(200);
    // Left out, signature_verification keeps its value.
    expect(updated.body.data).to.deep.include({ url: `${url}/v2`, signature_verification: "enabled" });
    expect(updated.body.data.created_at).to.equal(created.body.data.created_at);

    const initial = await harness.call("POST", path, { as: owner, body: { url, type: "initial_document_validation" } });
    expect(initial.status).to.equal(201);
    expect(initial.body.data.signature_verification).to.equal("disabled");

    const listed = await harness.call("GET", path, { as: editor });
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((link: { type: string }) => link.type)).to.deep.equal([
      "document_validation",
      "initial_document_validation",
    ]);
    expect(listed.body.pagination).to.equal(undefined);

    expect((await harness.call("DELETE", `${path}/document_validation`, { as: owner })).status).to.equal(204);
    expect((await harness.call("DELETE", `${path}/document_validation`, { as: owner })).status).to.equal(404);
    const after = await harness.call("GET", path, { as: owner });
    expect(after.body.data.map((link: { type: string }) => link.type)).to.deep.equal(["initial_document_validation"]);
  });

  it("tells the document service to expect the validator before committing it; when it cannot be told, nothing is saved", async () => {
    const place = harness.hierarchy(at.organizationId);
    const seenBeforeCommit: string[] = [];
    harness.documents.onExpectValidator = async () => {
      // Another connection: the link (or webhook) being saved is not committed yet while the document service is told.
      const [row] = await harness.sql<{ links: string; webhooks: string }>(
        `SELECT (SELECT count(*) FROM validation_links WHERE queue_id = $1) AS links,
                (SELECT count(*) FROM webhooks WHERE entity_id = $2) AS webhooks`,
        [place.queueId, place.workspaceId],
      );
      seenBeforeCommit.push(`${row!.links} links, ${row!.webhooks} webhooks`);
    };
    try {
      const expected = harness.documents.expectedValidators.length;
      const link = await harness.call("POST", `/queues/${place.queueId}/external-validation-links`, {
        as: owner,
        body: { url, type: "initial_document_validation" },
      });
      expect(link.status).to.equal(201);
      const onWorkspace = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/ws`, entity_type: "workspace", entity_id: place.workspaceId, type: "document_validation" },
      });
      expect(onWorkspace.status).to.equal(201);
      // A delivery webhook has nothing to validate: the document service is not told.
      const delivery = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/status`, entity_type: "workspace", entity_id: place.workspaceId, type: "document_status_changed" },
      });
      expect(delivery.status).to.equal(201);
      expect(harness.documents.expectedValidators.slice(expected)).to.deep.equal([
        { entityType: "queue", entityId: place.queueId, type: "initial_document_validation" },
        { entityType: "workspace", entityId: place.workspaceId, type: "document_validation" },
      ]);
      expect(seenBeforeCommit).to.deep.equal(["0 links, 0 webhooks", "1 links, 0 webhooks"]);

      harness.documents.onExpectValidator = async () => {
        throw new Error("the document service fails");
      };
      const other = harness.hierarchy(at.organizationId);
      const refusedLink = await harness.call("POST", `/queues/${other.queueId}/external-validation-links`, {
        as: owner,
        body: { url, type: "document_validation" },
      });
      const refusedWebhook = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/org`, entity_type: "workspace", entity_id: other.workspaceId, type: "document_validation" },
      });
      for (const refused of [refusedLink, refusedWebhook]) {
        expect(refused.status, JSON.stringify(refused.body)).to.be.oneOf([502, 503]);
        expect(refused.headers.get("content-type")).to.match(/^application\/problem\+json/);
      }
      const stored = await harness.sql(
        "SELECT 1 FROM validation_links WHERE queue_id = $1 UNION ALL SELECT 1 FROM webhooks WHERE entity_id = $2",
        [other.queueId, other.workspaceId],
      );
      expect(stored).to.have.lengthOf(0);
    } finally {
      harness.documents.onExpectValidator = undefined;
    }
  });

  it("failure_policy: allow by default, block when asked; left out on update it stays; GET shows it", async () => {
    const place = harness.hierarchy(at.organizationId);
    const path = `/queues/${place.queueId}/external-validation-links`;
    const blocking = await harness.call("POST", path, { as: owner, body: { url, type: "document_validation", failure_policy: "block" } });
    expect(blocking.status).to.equal(201);
    expect(blocking.body.data.failure_policy).to.equal("block");
    const kept = await harness.call("POST", path, { as: owner, body: { url: `${url}/v2`, type: "document_validation" } });
    expect(kept.status).to.equal(200);
    expect(kept.body.data.failure_policy).to.equal("block");
    const defaulted = await harness.call("POST", path, {
      as: owner,
      body: { url, type: "initial_document_validation", failure_policy: null },
    });
    expect(defaulted.body.data.failure_policy).to.equal("allow");
    const listed = await harness.call("GET", path, { as: editor });
    expect(listed.body.data.map((link: { type: string; failure_policy: string }) => [link.type, link.failure_policy])).to.deep.equal([
      ["document_validation", "block"],
      ["initial_document_validation", "allow"],
    ]);
    const allowed = await harness.call("POST", path, { as: owner, body: { url, type: "document_validation", failure_policy: "allow" } });
    expect(allowed.body.data.failure_policy).to.equal("allow");
  });

  it("refuses bad input (400), unknown or foreign queues (404) and editors (403), storing nothing", async () => {
    const place = harness.hierarchy(at.organizationId);
    const path = `/queues/${place.queueId}/external-validation-links`;
    const bad = await harness.call("POST", path, {
      as: owner,
      body: { url: "nope", type: "document_status_changed", signature_verification: "on", failure_policy: "deny" },
    });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).to.deep.equal([
      "failure_policy",
      "signature_verification",
      "type",
      "url",
    ]);
    expect((await harness.call("DELETE", `${path}/queue_created`, { as: owner })).status).to.equal(400);
    expect((await harness.call("POST", path, { as: editor, body: { url, type: "document_validation" } })).status).to.equal(403);
    const stranger = await harness.team([]);
    const foreign = harness.hierarchy(stranger.organization.id);
    expect(
      (
        await harness.call("POST", `/queues/${foreign.queueId}/external-validation-links`, {
          as: owner,
          body: { url, type: "document_validation" },
        })
      ).status,
    ).to.equal(404);
    expect((await harness.call("GET", `/queues/${foreign.queueId}/external-validation-links`, { as: owner })).status).to.equal(404);
    expect((await harness.call("GET", path, { as: owner })).body.data).to.deep.equal([]);
  });

  describe("validation webhooks created through the deprecated POST /webhooks (spec: already moved to their queues)", () => {
    let team: Awaited<ReturnType<WebhookHarness["team"]>>;
    let boss: Person;

    before(async () => {
      team = await harness.team([]);
      boss = team.owner;
    });

    const linksOf = async (queueId: string) => {
      const answer = await harness.call("GET", `/queues/${queueId}/external-validation-links`, { as: boss });
      expect(answer.status).to.equal(200);
      return answer.body.data as Array<{ type: string; url: string; webhook_id: string | null; failure_policy: string }>;
    };
    const deprecated = async (entityType: string, entityId: string, type: string, path: string) => {
      const answer = await harness.call("POST", "/webhooks", {
        as: boss,
        body: { url: `${url}/${path}`, entity_type: entityType, entity_id: entityId, type },
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      return answer.body.data as { id: string; url: string };
    };

    it("are listed as the queue's links: its own, else the nearest of its workspace and organization; a saved link replaces the queue's own", async () => {
      const place = harness.hierarchy(team.organization.id);
      const sibling = harness.documents.addQueue(place.workspaceId, "sibling-of-moved");
      const onOrganization = await deprecated("organization", team.organization.id, "document_validation", "org");
      const onWorkspace = await deprecated("workspace", place.workspaceId, "initial_document_validation", "ws");
      const onQueue = await deprecated("queue", place.queueId, "document_validation", "queue");

      const listed = await linksOf(place.queueId);
      expect(
        listed.map(({ type, url: linkUrl, webhook_id, failure_policy }) => ({ type, url: linkUrl, webhook_id, failure_policy })),
      ).to.deep.equal([
        { type: "document_validation", url: onQueue.url, webhook_id: onQueue.id, failure_policy: "allow" },
        { type: "initial_document_validation", url: onWorkspace.url, webhook_id: onWorkspace.id, failure_policy: "allow" },
      ]);
      expect((await linksOf(sibling)).map((link) => link.webhook_id)).to.deep.equal([onOrganization.id, onWorkspace.id]);

      // Saving the queue's link of that type replaces the moved webhook: an update (200), and the webhook is gone.
      const saved = await harness.call("POST", `/queues/${place.queueId}/external-validation-links`, {
        as: boss,
        body: { url: `${url}/saved`, type: "document_validation" },
      });
      expect(saved.status).to.equal(200);
      expect(saved.body.data).to.deep.include({ url: `${url}/saved`, webhook_id: null });
      expect((await harness.call("GET", `/webhooks/${onQueue.id}`, { as: boss })).status).to.equal(404);
      expect((await linksOf(place.queueId)).map((link) => link.webhook_id)).to.deep.equal([null, onWorkspace.id]);

      // The workspace's webhook speaks for other queues too: it is not this queue's to delete.
      expect(
        (await harness.call("DELETE", `/queues/${place.queueId}/external-validation-links/initial_document_validation`, { as: boss }))
          .status,
      ).to.equal(404);
      // The queue's own moved webhook is its link: deleting the link deletes it.
      const own = await deprecated("queue", sibling, "initial_document_validation", "sibling");
      expect(
        (await harness.call("DELETE", `/queues/${sibling}/external-validation-links/initial_document_validation`, { as: boss })).status,
      ).to.equal(204);
      expect((await harness.call("GET", `/webhooks/${own.id}`, { as: boss })).status).to.equal(404);
    });

    it("one per queue (or entity) and type: a second validation webhook, or one beside the queue's link, is 409 validation_link_exists", async () => {
      const place = harness.hierarchy(team.organization.id);
      const first = await deprecated("queue", place.queueId, "document_validation", "first");
      const second = await harness.call("POST", "/webhooks", {
        as: boss,
        body: { url: `${url}/second`, entity_type: "queue", entity_id: place.queueId, type: "document_validation" },
      });
      expect(second.status).to.equal(409);
      expect(second.body.code).to.equal("validation_link_exists");
      expect(second.body.detail).to.include(first.id);

      const linked = harness.hierarchy(team.organization.id);
      expect(
        (
          await harness.call("POST", `/queues/${linked.queueId}/external-validation-links`, {
            as: boss,
            body: { url, type: "document_validation" },
          })
        ).status,
      ).to.equal(201);
      const besideLink = await harness.call("POST", "/webhooks", {
        as: boss,
        body: { url: `${url}/beside`, entity_type: "queue", entity_id: linked.queueId, type: "document_validation" },
      });
      expect(besideLink.status).to.equal(409);
      expect(besideLink.body.code).to.equal("validation_link_exists");
      // The other type is free, and so are delivery types.
      await deprecated("queue", linked.queueId, "initial_document_validation", "other-type");
      await deprecated("queue", linked.queueId, "document_status_changed", "status");

      const twice = await harness.call("POST", "/webhooks", {
        as: boss,
        body: { url: `${url}/ws-2`, entity_type: "workspace", entity_id: place.workspaceId, type: "document_validation" },
      });
      expect(twice.status).to.equal(201);
      const thrice = await harness.call("POST", "/webhooks", {
        as: boss,
        body: { url: `${url}/ws-3`, entity_type: "workspace", entity_id: place.workspaceId, type: "document_validation" },
      });
      expect(thrice.status).to.equal(409);
    });

    it("holds under concurrency: ten validation webhooks and five link saves at once leave exactly one validator of the type", async () => {
      const place = harness.hierarchy(team.organization.id);
      const webhooks = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          harness.call("POST", "/webhooks", {
            as: boss,
            body: { url: `${url}/race/${index}`, entity_type: "queue", entity_id: place.queueId, type: "document_validation" },
          }),
        ),
      );
      expect(webhooks.filter((answer) => answer.status === 201)).to.have.length(1);
      expect(webhooks.filter((answer) => answer.status === 409)).to.have.length(9);

      const mixed = harness.hierarchy(team.organization.id);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          index % 2 === 0
            ? harness.call("POST", "/webhooks", {
                as: boss,
                body: { url: `${url}/mixed/${index}`, entity_type: "queue", entity_id: mixed.queueId, type: "document_validation" },
              })
            : harness.call("POST", `/queues/${mixed.queueId}/external-validation-links`, {
                as: boss,
                body: { url: `${url}/mixed/${index}`, type: "document_validation" },
              }),
        ),
      );
      expect(answers.map((answer) => answer.status).every((status) => [200, 201, 409].includes(status))).to.equal(true);
      const counted = await harness.sql<{ validators: number }>(
        `SELECT (SELECT count(*) FROM webhooks WHERE entity_id = $1 AND type = 'document_validation')::int
              + (SELECT count(*) FROM validation_links WHERE queue_id = $1 AND type = 'document_validation')::int AS validators`,
        [mixed.queueId],
      );
      expect(counted[0]?.validators).to.equal(1);
      expect(await linksOf(mixed.queueId)).to.have.length(1);
    });
  });
});
