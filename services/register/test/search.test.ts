import { expect } from "chai";
import { type Item, type Member, RegisterHarness } from "./support/register-harness.js";

const SYLLABLES = ["no", "vak", "sta", "vby", "tra", "ding", "al", "be", "ta", "elek", "tro", "a", "mo", "dřev", "stav", "hut"];
const LEGAL_FORMS = ["s.r.o.", "a.s.", "spol. s r.o.", "GmbH", "k.s."];

/** Supplier-like items from a fixed sequence: names of syllable words, legal forms, IČO and DIČ. */
function suppliers(count: number, seed: number): Item[] {
  let state = seed;
  const next = (size: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) % size;
  };
  const word = () => {
    let text = "";
    for (let index = 0; index < 2 + next(2); index += 1) text += SYLLABLES[next(SYLLABLES.length)];
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  return Array.from({ length: count }, (_, index) => {
    const name = `${word()} ${word()}`;
    const ico = String(10_000_000 + next(90_000_000));
    return {
      value: `S${seed}-${String(index).padStart(4, "0")}`,
      label: `${name} ${LEGAL_FORMS[next(LEGAL_FORMS.length)]}`,
      name,
      register_id: ico,
      tax_id: next(3) === 0 ? `SK20${ico}` : `CZ${ico}`,
    };
  });
}

/** The definition of q: a case-insensitive substring of one of the five fields, in upload order. */
function expectedMatches(items: Item[], q: string): string[] {
  const text = q.trim().toLowerCase();
  return items
    .filter((item) =>
      [item.value, item.label, item.name, item.register_id, item.tax_id].some((field) => field?.toLowerCase().includes(text)),
    )
    .map((item) => item.value);
}

describe("searching a register: results and totals equal a plain substring scan (document and membership are in-process test doubles)", () => {
  let harness: RegisterHarness;
  let owner: Member;
  let stranger: Member;
  let items: Item[];
  let registerId: string;
  let queueId: string;
  let otherRegisterId: string;

  before(async () => {
    harness = await RegisterHarness.start();
    const organization = harness.organization();
    const queue = harness.queue(organization);
    queueId = queue.id;
    owner = harness.member(organization, "owner");
    items = suppliers(600, 7);
    // Another organization's register holds words this one lacks; none of them may show up here.
    const otherOrganization = harness.organization();
    const otherQueue = harness.queue(otherOrganization);
    stranger = harness.member(otherOrganization, "owner");
    const mine = await harness.upload(owner.token, [{ queue_id: queue.id, method: "replace", name: "Suppliers", items }]);
    const theirs = await harness.upload(stranger.token, [
      {
        queue_id: otherQueue.id,
        method: "replace",
        name: "Suppliers",
        items: [...suppliers(50, 11), { value: "Q-1", label: "Quixotic Zephyr s.r.o.", register_id: "55555555", tax_id: "CZ55555555" }],
      },
    ]);
    expect(mine.status).to.equal(201);
    expect(theirs.status).to.equal(201);
    registerId = mine.body.data[0].id;
    otherRegisterId = theirs.body.data[0].id;
  });

  after(async () => {
    await harness?.stop();
  });

  /** Every page of a search, with the total and total_pages of each answer. */
  const searchAll = async (q: string, pageSize: number, id = registerId, member = owner) => {
    const values: string[] = [];
    const totals = new Set<string>();
    for (let page = 1; ; page += 1) {
      const answer = await harness.call("GET", `/registers/${id}/items?q=${encodeURIComponent(q)}&page=${page}&page_size=${pageSize}`, {
        token: member.token,
      });
      expect(answer.status, q).to.equal(200);
      values.push(...answer.body.data.map((item: { value: string }) => item.value));
      totals.add(`${answer.body.pagination.total}/${answer.body.pagination.total_pages}`);
      if (page >= answer.body.pagination.total_pages) return { values, totals: [...totals] };
    }
  };

  const expectSameAsScan = async (queries: string[], pageSize = 100) => {
    for (const q of queries) {
      const expected = expectedMatches(items, q);
      const { values, totals } = await searchAll(q, pageSize);
      expect(values, q).to.deep.equal(expected);
      expect(totals, q).to.deep.equal([`${expected.length}/${Math.ceil(expected.length / pageSize)}`]);
    }
  };

  it("finds the same items as the scan for whole words of names, in any case", async () => {
    const words = [...new Set(items.slice(0, 15).flatMap((item) => item.name!.split(" ")))];
    expect(words.length).to.be.greaterThan(20);
    await expectSameAsScan([...words, ...words.slice(0, 5).map((word) => word.toUpperCase())]);
  });

  it("finds the same items for prefixes and inner parts of words, and syllables that many names share", async () => {
    const words = items.slice(40, 48).flatMap((item) => item.name!.toLowerCase().split(" "));
    await expectSameAsScan([
      ...words.map((word) => word.slice(0, 3)),
      ...words.map((word) => word.slice(1, -1)),
      "sta",
      "ding",
      "dřev",
      "vby",
    ]);
  });

  it("finds the same items for several words, a name with its legal form, and words across the name's end", async () => {
    const labels = items.slice(60, 68).map((item) => item.label!);
    await expectSameAsScan([
      ...items.slice(60, 64).map((item) => item.name!),
      ...labels,
      ...labels.map((label) => label.slice(3, -2)),
      "spol. s r.o.",
      "s r.o.",
    ]);
  });

  it("finds the same items for q without a word of three characters: legal forms, letters, digits, wildcards", async () => {
    await expectSameAsScan(["s.r.o.", "a.s.", "k.s.", "cz", "sk", "a", "ř", "20", ". s", "%", "_", "o."], 50);
  });

  it("finds the same items for numbers, codes and tax ids, and nothing for a q that matches nothing", async () => {
    const sample = items.slice(100, 105);
    await expectSameAsScan([
      ...sample.map((item) => item.register_id!),
      ...sample.map((item) => item.tax_id!.slice(-6)),
      ...sample.map((item) => item.value),
      "s7-00",
      "zzyzx",
      "quixotic",
    ]);
  });

  it("pages every kind of q with the same total on every page, also with pages smaller than the matches", async () => {
    await expectSameAsScan(["sta", "s.r.o.", items[3]!.name!], 7);
  });

  it("counts a q without a three-character word that matches more than 10,000 items, and pages it in upload order", async () => {
    const many = suppliers(10_800, 5).map((item, index) =>
      index % 20 === 7 ? { ...item, label: item.name } : { ...item, label: `${item.name} s.r.o.` },
    );
    const answer = await harness.upload(owner.token, [{ queue_id: queueId, method: "replace", name: "Many", items: many }]);
    expect(answer.status).to.equal(201);
    const manyId = answer.body.data[0].id;
    for (const q of ["s.r.o.", "cz", "o."]) {
      const expected = expectedMatches(many, q);
      if (q !== "cz") expect(expected.length, q).to.be.greaterThan(10_000);
      for (const page of [1, 61]) {
        const found = await harness.call("GET", `/registers/${manyId}/items?q=${encodeURIComponent(q)}&page=${page}&page_size=100`, {
          token: owner.token,
        });
        expect(found.body.pagination.total, q).to.equal(expected.length);
        expect(
          found.body.data.map((item: { value: string }) => item.value),
          q,
        ).to.deep.equal(expected.slice((page - 1) * 100, page * 100));
      }
    }
  });

  it("keeps each register's search to its own items, and another organization's register is 404", async () => {
    const theirs = await searchAll("quixotic zephyr", 20, otherRegisterId, stranger);
    expect(theirs.values).to.deep.equal(["Q-1"]);
    expect((await searchAll("quixotic", 20)).values).to.deep.equal([]);
    const foreign = await harness.call("GET", `/registers/${otherRegisterId}/items?q=s.r.o.`, { token: owner.token });
    expect(foreign.status).to.equal(404);
  });

  it("finds upserted items by their new label and no longer by the old one", async () => {
    const renamed = items.slice(0, 2).map((item, index) => ({ ...item, label: `Renamed Kvasnicka ${index ? "a.s." : "s.r.o."}` }));
    const oldLabel = items[0]!.label!;
    const answer = await harness.upload(owner.token, [{ queue_id: queueId, method: "upsert", name: "Suppliers", items: renamed }]);
    expect(answer.status).to.equal(201);
    items = [...renamed, ...items.slice(2)];
    await expectSameAsScan(["kvasnicka", "renamed kvasnicka s.r.o.", oldLabel, "s.r.o.", items[0]!.name!]);
  });
});
