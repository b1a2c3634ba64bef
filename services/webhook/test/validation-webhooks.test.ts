import { randomUUID } from "node:crypto";
import { createEvent, eventSubject } from "@docex/events";
import { createWebhookClient } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
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

  it("a validation webhook: the document service is told after the commit, of its creation and deletion; when it cannot be told, the webhook stands", async () => {
    const place = harness.hierarchy(at.organizationId);
    const seenWhenTold: string[] = [];
    harness.documents.onRecordValidationWebhook = async () => {
      // Another connection: the webhook is committed when the document service is told (never inside the transaction).
      const [row] = await harness.sql<{ webhooks: string }>(`SELECT count(*) AS webhooks FROM webhooks WHERE entity_id = $1`, [
        place.workspaceId,
      ]);
      seenWhenTold.push(`${row!.webhooks} webhooks`);
    };
    try {
      const told = harness.documents.recordedWebhooks.length;
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
      // Answered after the call: an edit right after the answer finds the validator there.
      expect(harness.documents.recordedWebhooks.slice(told)).to.deep.equal([
        {
          webhookId: onWorkspace.body.data.id,
          entityType: "workspace",
          entityId: place.workspaceId,
          type: "document_validation",
          present: true,
        },
      ]);
      expect(seenWhenTold).to.deep.equal(["1 webhooks"]);
      expect((await harness.call("DELETE", `/webhooks/${onWorkspace.body.data.id}`, { as: owner })).status).to.equal(204);
      expect(harness.documents.recordedWebhooks.slice(told + 1)).to.deep.equal([
        {
          webhookId: onWorkspace.body.data.id,
          entityType: "workspace",
          entityId: place.workspaceId,
          type: "document_validation",
          present: false,
        },
      ]);

      harness.documents.onRecordValidationWebhook = async () => {
        throw new Error("the document service fails");
      };
      const other = harness.hierarchy(at.organizationId);
      const untold = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/org`, entity_type: "workspace", entity_id: other.workspaceId, type: "document_validation" },
      });
      // Committed before the call: the webhook stands, and its configuration.changed tells the document service.
      expect(untold.status, JSON.stringify(untold.body)).to.equal(201);
      expect(await harness.sql("SELECT 1 FROM webhooks WHERE entity_id = $1", [other.workspaceId])).to.have.lengthOf(1);
    } finally {
      harness.documents.onRecordValidationWebhook = undefined;
    }
  });

  it("a queue's validation webhook beside the queue's link of that type is 409 validation_link_exists (the document service is asked); other types are free", async () => {
    const place = harness.hierarchy(at.organizationId);
    harness.documents.links.add(`${place.queueId}/document_validation`);
    const beside = await harness.call("POST", "/webhooks", {
      as: owner,
      body: { url: `${url}/beside`, entity_type: "queue", entity_id: place.queueId, type: "document_validation" },
    });
    expect(beside.status).to.equal(409);
    expect(beside.body.code).to.equal("validation_link_exists");
    expect(await harness.sql("SELECT 1 FROM webhooks WHERE entity_id = $1", [place.queueId])).to.have.lengthOf(0);
    for (const type of ["initial_document_validation", "document_status_changed"]) {
      const free = await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/${type}`, entity_type: "queue", entity_id: place.queueId, type },
      });
      expect(free.status, type).to.equal(201);
    }
  });

  it("DeleteValidationWebhook (a link replaced it): deletes it and publishes the deletion; gone, another organization's or a delivery webhook: left alone", async () => {
    const place = harness.hierarchy(at.organizationId);
    const received = await harness.configurationEvents();
    const create = async (type: string) =>
      (
        await harness.call("POST", "/webhooks", {
          as: owner,
          body: { url: `${url}/replaced-${type}`, entity_type: "queue", entity_id: place.queueId, type },
        })
      ).body.data as { id: string };
    const validation = await create("document_validation");
    const delivery = await create("document_status_changed");
    const client = createWebhookClient(`127.0.0.1:${harness.webhook.running.grpcPort}`, {
      identity: testGrpcIdentity("document"),
      deadlineMs: 5_000,
    });
    try {
      const strangers = await client.deleteValidationWebhook({
        organization_id: randomUUID(),
        webhook_id: validation.id,
        actor_user_id: "",
      });
      expect(strangers.deleted).to.equal(false);
      const notValidation = await client.deleteValidationWebhook({
        organization_id: at.organizationId,
        webhook_id: delivery.id,
        actor_user_id: "",
      });
      expect(notValidation.deleted).to.equal(false);
      const replaced = await client.deleteValidationWebhook({
        organization_id: at.organizationId,
        webhook_id: validation.id,
        actor_user_id: owner.id,
      });
      expect(replaced.deleted).to.equal(true);
      expect((await harness.call("GET", `/webhooks/${validation.id}`, { as: owner })).status).to.equal(404);
      expect((await harness.call("GET", `/webhooks/${delivery.id}`, { as: owner })).status).to.equal(200);
      const again = await client.deleteValidationWebhook({
        organization_id: at.organizationId,
        webhook_id: validation.id,
        actor_user_id: "",
      });
      expect(again.deleted).to.equal(false);
      const deletion = await eventually(async () =>
        received().find((event) => event.data.resource_id === validation.id && event.data.change === "deleted"),
      );
      expect(deletion.actor_user_id).to.equal(owner.id);
    } finally {
      client.close();
    }
  });

  it("the backstop: a queue's link saved in the document service (its validation_link event) deletes the queue's own validation webhook of that type made before it", async () => {
    const place = harness.hierarchy(at.organizationId);
    const own = (
      await harness.call("POST", "/webhooks", {
        as: owner,
        body: { url: `${url}/own`, entity_type: "queue", entity_id: place.queueId, type: "initial_document_validation" },
      })
    ).body.data as { id: string };
    const event = createEvent("configuration.changed", {
      organization_id: at.organizationId,
      actor_user_id: owner.id,
      data: {
        resource: "validation_link",
        resource_id: "initial_document_validation",
        queue_id: place.queueId,
        change: "updated",
        previous: null,
        current: null,
      },
    });
    await harness.bus.publish(eventSubject(event.type), event, { msgId: event.id });
    await eventually(async () => ((await harness.call("GET", `/webhooks/${own.id}`, { as: owner })).status === 404 ? true : undefined));
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
