import { expect } from "chai";
import { itemsNamed, type Member, RegisterHarness } from "./support/register-harness.js";

describe("reading registers (document and membership are in-process test doubles)", () => {
  let harness: RegisterHarness;
  let organization: string;
  let queue: { id: string; humanizedId: string };
  let owner: Member;
  let viewer: Member;
  let pagedId: string;
  let searchedId: string;

  before(async () => {
    harness = await RegisterHarness.start();
    organization = harness.organization();
    queue = harness.queue(organization, "acme-invoices");
    owner = harness.member(organization, "owner");
    viewer = harness.member(organization, "viewer", [queue.id]);
    const answer = await harness.upload(owner.token, [
      { queue_id: queue.id, method: "replace", name: "Paged", items: itemsNamed("p", 250) },
      {
        queue_id: queue.id,
        method: "replace",
        name: "Searched",
        items: [
          { value: "ACME-001", label: "Acme Trading s.r.o.", name: "Acme", register_id: "27145632", tax_id: "CZ27145632" },
          { value: "BETA-002", label: "Beta Stavby a.s.", name: "Beta Group", register_id: "11223344", tax_id: "CZ11223344" },
          { value: "GAMMA-003", label: "Gamma Logistics", name: "Žluťoučký kůň", register_id: "99887766", tax_id: "SK2020123456" },
          { value: "100%_off", label: "Percent" },
          { value: "1000 off", label: "Plain" },
        ],
      },
    ]);
    expect(answer.status).to.equal(201);
    [pagedId, searchedId] = answer.body.data.map((register: { id: string }) => register.id);
  });

  after(async () => {
    await harness?.stop();
  });

  const items = (registerId: string, query: string, member = owner) =>
    harness.call("GET", `/registers/${registerId}/items${query}`, { token: member.token });

  describe("GET /registers/{register_id}/items", () => {
    it("answers the first 20 items in upload order with the pagination object by default", async () => {
      const answer = await items(pagedId, "");
      expect(answer.status).to.equal(200);
      expect(answer.body.pagination).to.deep.equal({ page: 1, page_size: 20, total: 250, total_pages: 13 });
      expect(answer.body.data.map((item: { value: string }) => item.value)).to.deep.equal(itemsNamed("p", 20).map((item) => item.value));
      expect(Object.keys(answer.body.data[0]).sort()).to.deep.equal(["data", "id", "label", "name", "register_id", "tax_id", "value"]);
    });

    it("answers the rest on the last page, and nothing with the same totals beyond it", async () => {
      const last = await items(pagedId, "?page=3&page_size=100");
      expect(last.body.pagination).to.deep.equal({ page: 3, page_size: 100, total: 250, total_pages: 3 });
      expect(last.body.data).to.have.length(50);
      expect(last.body.data[0].value).to.equal("p00201");
      expect(last.body.data[49].value).to.equal("p00250");

      const beyond = await items(pagedId, "?page=4&page_size=100");
      expect(beyond.status).to.equal(200);
      expect(beyond.body.data).to.deep.equal([]);
      expect(beyond.body.pagination).to.deep.equal({ page: 4, page_size: 100, total: 250, total_pages: 3 });
    });

    it("accepts page_size 100 and answers 400 for 101, 0, page 0 and numbers that are not integers", async () => {
      const hundred = await items(pagedId, "?page_size=100");
      expect(hundred.status).to.equal(200);
      expect(hundred.body.data).to.have.length(100);
      for (const query of ["?page_size=101", "?page_size=0", "?page=0", "?page=1.5", "?page_size=ten"]) {
        const answer = await items(pagedId, query);
        expect(answer.status, query).to.equal(400);
        expect(answer.body.errors[0].path, query).to.match(/^page(_size)?$/);
      }
    });

    const search = async (q: string) => {
      const answer = await items(searchedId, `?q=${encodeURIComponent(q)}`);
      expect(answer.status, q).to.equal(200);
      return answer.body.data.map((item: { value: string }) => item.value);
    };

    it("searches with q in each field, case-insensitively: value, label, name, register_id, tax_id", async () => {
      expect(await search("acme-0")).to.deep.equal(["ACME-001"]);
      expect(await search("STAVBY")).to.deep.equal(["BETA-002"]);
      expect(await search("group")).to.deep.equal(["BETA-002"]);
      expect(await search("ŽLUŤOUČKÝ")).to.deep.equal(["GAMMA-003"]);
      expect(await search("998877")).to.deep.equal(["GAMMA-003"]);
      expect(await search("sk2020")).to.deep.equal(["GAMMA-003"]);
      expect(await search("a")).to.deep.equal(["ACME-001", "BETA-002", "GAMMA-003", "1000 off"]);
    });

    it("finds a name inside its label and a register_id inside its tax_id by either field", async () => {
      expect(await search("acme")).to.deep.equal(["ACME-001"]);
      expect(await search("2714563")).to.deep.equal(["ACME-001"]);
      expect(await search("Group")).to.deep.equal(["BETA-002"]);
    });

    it("matches q literally (% and _ are no wildcards) and never across two fields", async () => {
      expect(await search("%")).to.deep.equal(["100%_off"]);
      expect(await search("0_o")).to.deep.equal([]);
      expect(await search("%_")).to.deep.equal(["100%_off"]);
      expect(await search("001acme")).to.deep.equal([]);
      expect(await search("acme trading")).to.deep.equal(["ACME-001"]);
      expect(await search("trading acme")).to.deep.equal([]);
      expect(await search("  Trading  ")).to.deep.equal(["ACME-001"]);
    });

    it("paginates the matches of q", async () => {
      const answer = await items(pagedId, "?q=p0012&page=2&page_size=4");
      expect(answer.body.pagination).to.deep.equal({ page: 2, page_size: 4, total: 10, total_pages: 3 });
      expect(answer.body.data.map((item: { value: string }) => item.value)).to.deep.equal(["p00124", "p00125", "p00126", "p00127"]);
      const beyond = await items(pagedId, "?q=p0012&page=9&page_size=4");
      expect(beyond.body.data).to.deep.equal([]);
      expect(beyond.body.pagination.total).to.equal(10);
    });

    it("answers 400 for q with control characters", async () => {
      const answer = await items(searchedId, "?q=a%1Fb");
      expect(answer.status).to.equal(400);
      expect(answer.body.errors[0].path).to.equal("q");
    });

    it("lets a viewer of the queue read", async () => {
      expect((await items(pagedId, "", viewer)).status).to.equal(200);
    });

    it("answers 404 for another organization's register, to members limited to other queues, and for unknown ids", async () => {
      const foreignOrganization = harness.organization();
      const foreignOwner = harness.member(foreignOrganization, "owner");
      const foreign = await harness.upload(foreignOwner.token, [
        { queue_id: harness.queue(foreignOrganization).id, method: "replace", name: "Theirs", items: itemsNamed("t", 1) },
      ]);
      const foreignId = foreign.body.data[0].id;
      expect((await items(foreignId, "", foreignOwner)).status).to.equal(200);

      const answer = await items(foreignId, "");
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal("register_not_found");
      const elsewhere = harness.member(organization, "viewer", [harness.queue(organization).id]);
      expect((await items(pagedId, "", elsewhere)).status).to.equal(404);
      expect((await items(pagedId, "", harness.stranger())).status).to.equal(404);
      expect((await items("00000000-0000-4000-8000-000000000000", "")).status).to.equal(404);
      expect((await items("not-a-uuid", "")).status).to.equal(404);
    });

    it("answers 401 without a token", async () => {
      expect((await harness.call("GET", `/registers/${pagedId}/items`)).status).to.equal(401);
    });
  });

  describe("GET /queues/{queue_id}/registers", () => {
    it("lists the queue's registers by name, by UUID or humanized id", async () => {
      for (const ref of [queue.id, queue.humanizedId]) {
        const answer = await harness.call("GET", `/queues/${ref}/registers`, { token: viewer.token });
        expect(answer.status).to.equal(200);
        expect(
          answer.body.data.map((register: { name: string; item_count: number }) => [register.name, register.item_count]),
        ).to.deep.equal([
          ["Paged", 250],
          ["Searched", 5],
        ]);
        expect(Object.keys(answer.body.data[0]).sort()).to.deep.equal(["created_at", "id", "item_count", "name", "queue_id", "updated_at"]);
      }
    });

    it("answers an empty list for a queue without registers", async () => {
      const empty = harness.queue(organization);
      expect(await harness.registersOf(owner.token, empty.id)).to.deep.equal([]);
    });

    it("answers 404 for another organization's queue and for an unknown queue", async () => {
      const foreign = harness.queue(harness.organization());
      for (const ref of [foreign.id, "no-such-queue"]) {
        const answer = await harness.call("GET", `/queues/${ref}/registers`, { token: owner.token });
        expect(answer.status, ref).to.equal(404);
        expect(answer.body.code).to.equal("queue_not_found");
      }
    });
  });
});
