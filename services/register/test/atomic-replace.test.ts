import { expect } from "chai";
import { itemsNamed, RegisterHarness } from "./support/register-harness.js";

describe("replace seen by a concurrent reader (document and membership are in-process test doubles)", () => {
  let harness: RegisterHarness;

  before(async () => {
    harness = await RegisterHarness.start();
  });

  after(async () => {
    await harness?.stop();
  });

  it("shows every reader the old items or the new items with their own totals, never a mix, while a large replace runs", async () => {
    const organization = harness.organization();
    const queue = harness.queue(organization);
    const owner = harness.member(organization, "owner");
    const oldItems = itemsNamed("old-", 12_000);
    const newItems = itemsNamed("new-", 15_000);
    const first = await harness.upload(owner.token, [{ queue_id: queue.id, method: "replace", name: "Swapped", items: oldItems }]);
    const registerId = first.body.data[0].id;

    const matching = (items: { value: string }[], q: string) => items.filter((item) => item.value.includes(q)).length;
    const sets = {
      old: { total: oldItems.length, searchTotal: matching(oldItems, "00") },
      new: { total: newItems.length, searchTotal: matching(newItems, "00") },
    };
    expect(sets.old.searchTotal).to.be.greaterThan(50).and.not.equal(sets.new.searchTotal);
    const observations: { set: "old" | "new"; at: number }[] = [];
    let writing = true;
    const observe = async (query: string, search: boolean) => {
      const answer = await harness.call("GET", `/registers/${registerId}/items${query}`, { token: owner.token });
      expect(answer.status).to.equal(200);
      const prefixes = new Set(answer.body.data.map((item: { value: string }) => item.value.slice(0, 4)));
      expect(prefixes.size, `one page mixes ${[...prefixes].join(" and ")}`).to.equal(1);
      const set = prefixes.has("old-") ? "old" : "new";
      expect(answer.body.pagination.total, `${set} page with another set's total`).to.equal(
        search ? sets[set].searchTotal : sets[set].total,
      );
      observations.push({ set, at: Date.now() });
    };
    const reader = (async () => {
      for (let round = 0; writing; round += 1) {
        await Promise.all([
          observe(`?page=${1 + (round % 100)}&page_size=100`, false),
          observe(`?q=00&page=${1 + (round % 5)}&page_size=10`, true),
        ]);
      }
    })();

    const replaced = await harness.upload(owner.token, [{ queue_id: queue.id, method: "replace", name: "Swapped", items: newItems }]);
    const committedAt = Date.now();
    writing = false;
    await reader;
    expect(replaced.status).to.equal(201);
    await observe("?page=150&page_size=100", false);

    const before = observations.filter((observation) => observation.at < committedAt);
    expect(before.filter((observation) => observation.set === "old").length, "reads while the replace ran").to.be.greaterThan(5);
    expect(observations.at(-1)?.set).to.equal("new");
  });
});
