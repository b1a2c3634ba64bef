import { randomUUID } from "node:crypto";
import { NotFoundError } from "@docex/kit/errors";
import { expect } from "chai";
import { MembershipHarness, uniqueLabel } from "./support/harness.js";

describe("organizations: create, read, list (HTTP, real Postgres and NATS)", () => {
  let h: MembershipHarness;

  before(async () => {
    h = await MembershipHarness.start();
  });

  after(async () => {
    await h?.stop();
  });

  it("creates an organization with a humanized id from its name, makes the caller owner, and publishes both events", async () => {
    const owner = h.person("founder");
    const created = await h.call("POST", "/organizations", { as: owner, body: { name: "  Účetní kancelář Nováková  " } });
    expect(created.status).to.equal(201);
    const organization = created.body.data;
    expect(organization).to.have.all.keys("id", "humanized_id", "name", "created_at");
    expect(organization.name).to.equal("Účetní kancelář Nováková");
    expect(organization.humanized_id).to.equal("ucetni-kancelar-novakova");
    expect(created.headers.get("location")).to.equal(`/api/v2/organizations/${organization.id}`);

    const members = await h.memberships(organization.id, owner);
    expect(members).to.deep.equal([
      { user_id: owner.id, email: owner.email, name: "founder", role: "owner", queue_ids: null, status: "active", is_manageable: false },
    ]);

    const createdEvent = await h.waitForEvent(
      (event) => event.type === "organization.created" && event.organization_id === organization.id,
    );
    expect(createdEvent.subject).to.equal("docex.organization.created");
    expect(createdEvent.data).to.deep.equal({
      organization_id: organization.id,
      humanized_id: "ucetni-kancelar-novakova",
      name: "Účetní kancelář Nováková",
      owner_user_id: owner.id,
    });
    const membershipEvent = await h.waitForEvent(
      (event) => event.type === "membership.changed" && event.organization_id === organization.id,
    );
    expect(membershipEvent.data).to.deep.equal({
      organization_id: organization.id,
      user_id: owner.id,
      role: "owner",
      previous_role: null,
      queue_ids: null,
      status: "active",
    });
  });

  it("gives the same name a unique humanized id (acme, acme-2, acme-3)", async () => {
    const owner = h.person("acme");
    const name = uniqueLabel("Acme");
    const base = name.toLowerCase();
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await h.createOrganization(owner, name)).humanized_id);
    expect(ids).to.deep.equal([base, `${base}-2`, `${base}-3`]);
  });

  it("takes a humanized id given by the client, and answers 409 when another organization has it", async () => {
    const owner = h.person("chosen");
    const humanizedId = uniqueLabel("chosen-slug");
    const first = await h.call("POST", "/organizations", { as: owner, body: { name: "Anything", humanized_id: humanizedId } });
    expect(first.status).to.equal(201);
    expect(first.body.data.humanized_id).to.equal(humanizedId);
    const second = await h.call("POST", "/organizations", { as: h.person("other"), body: { name: "Other", humanized_id: humanizedId } });
    expect(second.status).to.equal(409);
    expect(second.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(second.body).to.include({ code: "humanized_id_taken", status: 409 });
    expect(second.body.errors).to.deep.equal([{ path: "humanized_id", message: "Another organization has this humanized id." }]);
  });

  it("refuses a bad body with 400 listing every bad field: empty name, uppercase or UUID-shaped humanized ids", async () => {
    const owner = h.person("bad");
    const answer = await h.call("POST", "/organizations", { as: owner, body: { name: "  ", humanized_id: "Not A Slug" } });
    expect(answer.status).to.equal(400);
    expect(answer.body.errors.map((error: { path: string }) => error.path)).to.have.members(["name", "humanized_id"]);
    const uuidShaped = await h.call("POST", "/organizations", { as: owner, body: { name: "x", humanized_id: randomUUID() } });
    expect(uuidShaped.status).to.equal(400);
    expect(uuidShaped.body.errors[0]).to.deep.equal({ path: "humanized_id", message: "Must not have the form of a UUID." });
  });

  it("reads an organization by UUID and by humanized id", async () => {
    const owner = h.person("reader");
    const organization = await h.createOrganization(owner);
    for (const ref of [organization.id, organization.humanized_id]) {
      const answer = await h.call("GET", `/organizations/${ref}`, { as: owner });
      expect(answer.status).to.equal(200);
      expect(answer.body.data).to.deep.include({ id: organization.id, humanized_id: organization.humanized_id, name: organization.name });
      expect(Date.parse(answer.body.data.created_at)).to.be.closeTo(Date.now(), 60_000);
    }
  });

  it("lists the caller's organizations oldest first, paginated", async () => {
    const owner = h.person("lister");
    const created = [];
    for (let i = 0; i < 3; i += 1) created.push(await h.createOrganization(owner));
    const first = await h.call("GET", "/organizations?page=1&page_size=2", { as: owner });
    expect(first.status).to.equal(200);
    expect(first.body.data.map((o: { id: string }) => o.id)).to.deep.equal([created[0]!.id, created[1]!.id]);
    expect(first.body.pagination).to.deep.equal({ page: 1, page_size: 2, total: 3, total_pages: 2 });
    const second = await h.call("GET", "/organizations?page=2&page_size=2", { as: owner });
    expect(second.body.data.map((o: { id: string }) => o.id)).to.deep.equal([created[2]!.id]);
    const stranger = await h.call("GET", "/organizations", { as: h.person("stranger") });
    expect(stranger.body).to.deep.equal({ data: [], pagination: { page: 1, page_size: 20, total: 0, total_pages: 0 } });
    const badPage = await h.call("GET", "/organizations?page_size=101", { as: owner });
    expect(badPage.status).to.equal(400);
  });

  it("answers 401 without a valid access token on every endpoint", async () => {
    const owner = h.person("tokens");
    const organization = await h.createOrganization(owner);
    const forged = h.issuer.forged({ sub: owner.id });
    const paths: Array<[string, string]> = [
      ["POST", "/organizations"],
      ["GET", "/organizations"],
      ["GET", `/organizations/${organization.id}`],
      ["GET", `/organizations/${organization.id}/raw-memberships`],
      ["POST", `/organizations/${organization.id}/assign-roles`],
      ["POST", `/organizations/${organization.id}/manage-user-schema`],
    ];
    for (const [method, path] of paths) {
      for (const token of [undefined, forged.expired, forged.algNone, forged.wrongAudience]) {
        const answer = await h.call(method, path, { ...(token ? { token } : {}), body: method === "POST" ? {} : undefined });
        expect(answer.status, `${method} ${path}`).to.equal(401);
      }
    }
  });

  it("answers 405 with Allow for a method a path does not take", async () => {
    const owner = h.person("methods");
    const organization = await h.createOrganization(owner);
    const answer = await h.call("DELETE", `/organizations/${organization.id}`, { as: owner });
    expect(answer.status).to.equal(405);
    expect(answer.headers.get("allow")).to.equal("GET, PATCH");
  });

  it("renames an organization (owners and supervisors), keeps its humanized id and publishes configuration.changed", async () => {
    const { organization, owner, members } = await h.team(["supervisor", "admin", "editor", "viewer"]);
    const [supervisor, ...others] = members;
    const renamed = await h.call("PATCH", `/organizations/${organization.humanized_id}`, { as: owner, body: { name: "  New name  " } });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.data).to.deep.equal({ ...organization, name: "New name" });
    const event = await h.waitForEvent(
      (recorded) => recorded.type === "configuration.changed" && recorded.organization_id === organization.id,
    );
    expect(event.data).to.deep.equal({
      resource: "organization",
      resource_id: organization.id,
      queue_id: null,
      change: "updated",
      previous: { name: organization.name },
      current: { name: "New name" },
    });
    expect(
      (await h.call("PATCH", `/organizations/${organization.id}`, { as: supervisor!, body: { name: "By supervisor" } })).status,
    ).to.equal(200);
    for (const person of others) {
      const refused = await h.call("PATCH", `/organizations/${organization.id}`, { as: person, body: { name: "Never" } });
      expect(refused.status).to.equal(403);
    }
    const stranger = h.person("stranger");
    expect((await h.call("PATCH", `/organizations/${organization.id}`, { as: stranger, body: { name: "Never" } })).status).to.equal(404);
    const bad = await h.call("PATCH", `/organizations/${organization.id}`, { as: owner, body: { name: "", humanized_id: "x" } });
    expect(bad.status).to.equal(400);
    const read = await h.call("GET", `/organizations/${organization.id}`, { as: owner });
    expect(read.body.data).to.deep.equal({ ...organization, name: "By supervisor" });
  });

  it("GetOrganization finds an organization by UUID or humanized id for any service, NOT_FOUND otherwise", async () => {
    const owner = h.person("lookup");
    const organization = await h.createOrganization(owner);
    for (const ref of [organization.id, organization.humanized_id, organization.id.toUpperCase()]) {
      const answer = await h.grpc.getOrganization({ id_or_humanized: ref });
      expect(answer.organization).to.include({ id: organization.id, humanized_id: organization.humanized_id, name: organization.name });
    }
    for (const ref of [randomUUID(), "no-such-organization", ""]) {
      const failure = await h.grpc.getOrganization({ id_or_humanized: ref }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, ref).to.be.instanceOf(NotFoundError);
    }
  });
});
