import { randomUUID } from "node:crypto";
import {
  type CheckPermissionAnswer,
  type CheckPermissionQuery,
  evictOnMembershipChanges,
  type MembershipAnswers,
  PermissionCache,
  type RolesAnswer,
} from "@docex/access";
import { createEvent } from "@docex/events";
import { EventBus } from "@docex/kit/bus";
import { createLogger } from "@docex/kit/logger";
import { createMembershipClient } from "@docex/protos";
import { eventually, testEventNamespace, testGrpcIdentity, testNatsUrl } from "@docex/testkit";
import { expect } from "chai";
import { MembershipHarness } from "./support/harness.js";

/** A unit-test source of answers: counts calls, answers what the test sets, can be slowed down. */
class CountingSource implements MembershipAnswers {
  calls = 0;
  roles = new Map<string, string>();
  delay: Promise<void> | undefined;
  failNext = false;

  async checkPermission(query: CheckPermissionQuery): Promise<CheckPermissionAnswer> {
    this.calls += 1;
    const role = this.roles.get(`${query.organization_id}/${query.user_id}`) ?? "";
    await this.delay;
    if (this.failNext) {
      this.failNext = false;
      throw new Error("membership unavailable");
    }
    return { allowed: role === "owner", is_member: role !== "", role };
  }

  async getRoles(query: { user_id: string; organization_id: string }): Promise<RolesAnswer> {
    this.calls += 1;
    const role = this.roles.get(`${query.organization_id}/${query.user_id}`) ?? "";
    return { role, queue_ids: [], all_queues: role !== "", status: role ? "active" : "" };
  }
}

const ask = (userId: string, organizationId: string, permission = "document.edit") => ({
  user_id: userId,
  organization_id: organizationId,
  permission,
});

describe("PermissionCache (kit): membership's answers kept briefly, evicted by membership.changed", () => {
  const user = randomUUID();
  const other = randomUUID();
  const org = randomUUID();
  const otherOrg = randomUUID();

  it("reuses an answer, including 'not a member', until its time is up, and never keeps a failure", async () => {
    const source = new CountingSource();
    let now = 0;
    const cache = new PermissionCache(source, { ttlMs: 30_000, now: () => now });
    source.roles.set(`${org}/${user}`, "owner");
    expect(await cache.checkPermission(ask(user, org))).to.deep.equal({ allowed: true, is_member: true, role: "owner" });
    expect(await cache.checkPermission(ask(other, org))).to.deep.equal({ allowed: false, is_member: false, role: "" });
    await cache.checkPermission(ask(user, org));
    await cache.checkPermission(ask(other, org));
    expect(source.calls).to.equal(2);
    now += 30_001;
    await cache.checkPermission(ask(user, org));
    expect(source.calls).to.equal(3);

    source.failNext = true;
    const failed = await cache.checkPermission(ask(user, org, "queue.manage")).catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(Error);
    await cache.checkPermission(ask(user, org, "queue.manage"));
    expect(source.calls).to.equal(5);
  });

  it("asks membership once for identical questions asked at the same time", async () => {
    const source = new CountingSource();
    const cache = new PermissionCache(source);
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.checkPermission(ask(user, org))));
    expect(answers).to.have.length(10);
    expect(source.calls).to.equal(1);
  });

  it("evicts one user in one organization, a whole organization, or everything", async () => {
    const source = new CountingSource();
    const cache = new PermissionCache(source);
    const prime = async () => {
      for (const [u, o] of [
        [user, org],
        [other, org],
        [user, otherOrg],
      ] as const) {
        await cache.checkPermission(ask(u, o));
        await cache.getRoles({ user_id: u, organization_id: o });
      }
    };
    await prime();
    expect(cache.size).to.equal(6);
    cache.evict({ userId: user, organizationId: org });
    expect(cache.size).to.equal(4);
    cache.evict({ organizationId: org });
    expect(cache.size).to.equal(2);
    cache.evict({ userId: user });
    expect(cache.size).to.equal(0);
    await prime();
    cache.clear();
    expect(cache.size).to.equal(0);
  });

  it("does not keep an answer that was in flight when an eviction happened (it may predate the change)", async () => {
    const source = new CountingSource();
    const cache = new PermissionCache(source);
    let release: () => void = () => undefined;
    source.delay = new Promise((resolve) => {
      release = resolve;
    });
    const pending = cache.checkPermission(ask(user, org));
    cache.evict({ userId: user, organizationId: org });
    release();
    await pending;
    source.delay = undefined;
    expect(cache.size).to.equal(0);
    await cache.checkPermission(ask(user, org));
    expect(source.calls).to.equal(2);
  });

  it("keeps at most maxEntries answers, dropping the least recently used", async () => {
    const source = new CountingSource();
    const cache = new PermissionCache(source, { maxEntries: 2 });
    await cache.checkPermission(ask(user, org, "a"));
    await cache.checkPermission(ask(user, org, "b"));
    await cache.checkPermission(ask(user, org, "a"));
    await cache.checkPermission(ask(user, org, "c"));
    expect(cache.size).to.equal(2);
    await cache.checkPermission(ask(user, org, "a"));
    expect(source.calls).to.equal(3);
    await cache.checkPermission(ask(user, org, "b"));
    expect(source.calls).to.equal(4);
  });

  describe("with NATS", () => {
    let bus: EventBus;

    before(async () => {
      bus = await EventBus.connect({
        url: testNatsUrl(),
        namespace: testEventNamespace(),
        name: "permission-cache-test",
        logger: createLogger("test", "silent"),
      });
    });

    after(async () => {
      await bus?.close();
    });

    it("evicts within one second of a membership.changed published to JetStream, and only that user's answers", async () => {
      const source = new CountingSource();
      const cache = new PermissionCache(source);
      const eviction = evictOnMembershipChanges(cache, bus);
      try {
        const changedUser = randomUUID();
        const organizationId = randomUUID();
        source.roles.set(`${organizationId}/${changedUser}`, "owner");
        expect((await cache.checkPermission(ask(changedUser, organizationId))).allowed).to.equal(true);
        await cache.checkPermission(ask(other, organizationId));
        expect(cache.size).to.equal(2);
        await bus.connection.flush();

        source.roles.set(`${organizationId}/${changedUser}`, "viewer");
        const event = createEvent("membership.changed", {
          organization_id: organizationId,
          data: {
            organization_id: organizationId,
            user_id: changedUser,
            role: "viewer",
            previous_role: "owner",
            queue_ids: null,
            status: "active",
          },
        });
        const started = Date.now();
        await bus.publish("docex.membership.changed", event, { msgId: event.id });
        await eventually(
          async () => ((await cache.checkPermission(ask(changedUser, organizationId))).allowed ? undefined : true),
          1_000,
          10,
        );
        expect(Date.now() - started).to.be.below(1_000);
        expect(cache.size).to.equal(2);
        expect(source.calls).to.equal(3);
      } finally {
        await eviction.stop();
      }
    });

    it("drops everything on a membership.changed it cannot read", async () => {
      const source = new CountingSource();
      const cache = new PermissionCache(source);
      const eviction = evictOnMembershipChanges(cache, bus);
      try {
        await cache.checkPermission(ask(user, org));
        await cache.getRoles({ user_id: other, organization_id: otherOrg });
        // Filled, and answering from memory: otherwise "empty afterwards" would prove nothing.
        await cache.checkPermission(ask(user, org));
        expect(cache.size).to.equal(2);
        expect(source.calls).to.equal(2);
        await bus.connection.flush();
        bus.connection.publish(bus.wireSubject("docex.membership.changed"), "not json");
        await eventually(() => (cache.size === 0 ? true : undefined), 1_000, 10);
        await cache.checkPermission(ask(user, org));
        expect(source.calls).to.equal(3);
      } finally {
        await eviction.stop();
      }
    });
  });

  describe("with the membership service", () => {
    let h: MembershipHarness;

    before(async () => {
      h = await MembershipHarness.start();
    });

    after(async () => {
      await h?.stop();
    });

    it("a role change through assign-roles takes effect in another service's cached authorization within one second", async () => {
      const { organization, owner, members } = await h.team(["editor"]);
      const editor = members[0]!;
      // The team's own membership.changed (the editor's acceptance) must be past before the cache is filled, or it
      // could empty the cache by itself and the eviction below would prove nothing.
      await h.waitForEvent(
        (event) => event.type === "membership.changed" && event.data.user_id === editor.id && event.data.status === "active",
      );
      // What another service builds: the generated membership client behind the kit's cache, evicted over NATS.
      const client = createMembershipClient(`127.0.0.1:${h.running.grpcPort}`, {
        identity: testGrpcIdentity("automation"),
        deadlineMs: 2_000,
      });
      const cache = new PermissionCache(client);
      const eviction = evictOnMembershipChanges(cache, h.bus);
      try {
        const question = ask(editor.id, organization.id, "document.edit");
        expect(await cache.checkPermission(question)).to.deep.equal({ allowed: true, is_member: true, role: "editor" });
        expect(await cache.getRoles({ user_id: editor.id, organization_id: organization.id })).to.include({ role: "editor" });
        // Both answers are kept: the change below must evict them, not find an empty cache.
        expect(cache.size).to.equal(2);

        const changed = await h.call("POST", `/organizations/${organization.id}/assign-roles`, {
          as: owner,
          body: [{ operation: "set_role", user_id: editor.id, role: "viewer" }],
        });
        expect(changed.status).to.equal(200);
        const started = Date.now();
        await eventually(async () => ((await cache.checkPermission(question)).allowed ? undefined : true), 1_000, 10);
        expect(Date.now() - started).to.be.below(1_000);
        expect(await cache.getRoles({ user_id: editor.id, organization_id: organization.id })).to.include({ role: "viewer" });

        await h.call("POST", `/organizations/${organization.id}/assign-roles`, {
          as: owner,
          body: [{ operation: "remove", user_id: editor.id }],
        });
        await eventually(async () => ((await cache.checkPermission(question)).is_member ? undefined : true), 1_000, 10);
      } finally {
        await eviction.stop();
        client.close();
      }
    });
  });
});
