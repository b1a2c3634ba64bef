import { expect } from "chai";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

describe("validation webhooks of the deprecated POST /webhooks (real membership in-process; document service played by a gRPC double; the queues' links are the document service's)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let _editor: Person;
  let at: Hierarchy;
  let url: string;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team(["editor"]);
    owner = team.owner;
    [_editor] = team.members as [Person];
    at = harness.hierarchy(team.organization.id);
    url = `${(await harness.receiver()).url}/validate`;
    // Signing on needs the organization's key (409 signing_key_missing otherwise).
    await harness.call("POST", `/organizations/${team.organization.id}/webhook-signing-key`, { as: owner });
  });

  after(async () => {
    await harness.stop();
  });

  it("a validation webhook: tells the document service to expect it before committing it; when it cannot be told, nothing is saved", async () => {
    const place = harness.hierarchy(at.organizationId);
    const seenBeforeCommit: string[] = [];
    harness.documents.onExpectValidator = async () => {
      // Another connection: the webhook being saved is not committed yet while the document service is told.
      const [row] = await harness.sql<{ webhooks: string }>(`SELECT count(*) AS webhooks FROM webhooks WHERE entity_id = $1`, [
        place.workspaceId,
      ]);
      seenBeforeCommit.push(`${row!.webhooks} webhooks`);
    };
    try {
      const expected = harness.documents.expectedValidators.length;
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
        { entityType: "workspace", entityId: place.workspaceId, type: "document_validation" },
      ]);
      expect(seenBeforeCommit).to.deep.equal(["0 webhooks"]);

      harness.documents.onExpectValidator = async () => {
        throw new Error("the document service fails");
      };
      const other = harness.hierarchy(at.organizationId);
      const refusedWebhook = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/org`, entity_type: "workspace", entity_id: other.workspaceId, type: "document_validation" },
      });
      expect(refusedWebhook.status, JSON.stringify(refusedWebhook.body)).to.be.oneOf([502, 503]);
      expect(refusedWebhook.headers.get("content-type")).to.match(/^application\/problem\+json/);
      const stored = await harness.sql("SELECT 1 FROM webhooks WHERE entity_id = $1", [other.workspaceId]);
      expect(stored).to.have.lengthOf(0);
    } finally {
      harness.documents.onExpectValidator = undefined;
    }
  });

  describe("validation webhooks created through the deprecated POST /webhooks (spec: already moved to their queues)", () => {
    let team: Awaited<ReturnType<WebhookHarness["team"]>>;
    let boss: Person;

    before(async () => {
      team = await harness.team([]);
      boss = team.owner;
    });

    const _linksOf = async (queueId: string) => {
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

    it("one per entity and type: a second validation webhook is 409 validation_link_exists; other types are free", async () => {
      const place = harness.hierarchy(team.organization.id);
      const first = await deprecated("queue", place.queueId, "document_validation", "first");
      const second = await harness.call("POST", "/webhooks", {
        as: boss,
        body: { url: `${url}/second`, entity_type: "queue", entity_id: place.queueId, type: "document_validation" },
      });
      expect(second.status).to.equal(409);
      expect(second.body.code).to.equal("validation_link_exists");
      expect(second.body.detail).to.include(first.id);

      await deprecated("queue", place.queueId, "initial_document_validation", "other-type");
      await deprecated("queue", place.queueId, "document_status_changed", "status");
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

    it("holds under concurrency: ten validation webhooks at once leave exactly one of the type", async () => {
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
    });
  });
});
