import { EventRecorder } from "@docex/testkit";
import { expect } from "chai";
import { itemsNamed, type Member, RegisterHarness } from "./support/register-harness.js";

describe("POST /registers (document and membership are in-process test doubles)", () => {
  let harness: RegisterHarness;
  let organization: string;
  let queue: { id: string; humanizedId: string };
  let owner: Member;

  before(async () => {
    harness = await RegisterHarness.start();
    organization = harness.organization();
    queue = harness.queue(organization);
    owner = harness.member(organization, "owner");
  });

  after(async () => {
    await harness?.stop();
  });

  let counter = 0;
  const uniqueName = (label: string) => `${label} ${++counter}`;

  describe("replace", () => {
    it("creates the register on its first upload and answers 201 with Location of its items and the register as data", async () => {
      const name = uniqueName("Suppliers");
      const answer = await harness.upload(owner.token, [
        {
          queue_id: queue.id,
          method: "replace",
          name,
          items: [{ value: "A", label: "Alpha", tax_id: "CZ1", data: { city: "Brno" } }, { value: "B" }],
        },
      ]);
      expect(answer.status).to.equal(201);
      const [register] = answer.body.data;
      expect(register).to.include({ queue_id: queue.id, name, item_count: 2 });
      expect(register.id).to.match(/^[0-9a-f-]{36}$/);
      expect(answer.headers.get("location")).to.equal(`/api/v2/registers/${register.id}/items`);

      const items = await harness.allItems(owner.token, register.id);
      expect(items).to.have.length(2);
      expect(items[0]).to.deep.include({
        value: "A",
        label: "Alpha",
        name: null,
        register_id: null,
        tax_id: "CZ1",
        data: { city: "Brno" },
      });
      expect(items[1]).to.deep.include({ value: "B", label: null, data: {} });
      expect(items[0].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it("swaps the whole content: values missing from the new upload are gone, a value kept keeps its id", async () => {
      const name = uniqueName("Suppliers");
      const first = await harness.upload(owner.token, [{ queue_id: queue.id, method: "replace", name, items: itemsNamed("old-", 30) }]);
      const registerId = first.body.data[0].id;
      const before = await harness.allItems(owner.token, registerId);

      const second = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "replace", name, items: [{ value: "new-1" }, { value: "old-00007", label: "kept" }] },
      ]);
      expect(second.status).to.equal(201);
      expect(second.body.data[0]).to.include({ id: registerId, item_count: 2 });
      const after = await harness.allItems(owner.token, registerId);
      expect(after.map((item) => item.value)).to.deep.equal(["new-1", "old-00007"]);
      expect(after[1].id).to.equal(before.find((item) => item.value === "old-00007").id);
    });

    it("with no items empties the register", async () => {
      const name = uniqueName("Suppliers");
      await harness.upload(owner.token, [{ queue_id: queue.id, method: "replace", name, items: itemsNamed("x", 3) }]);
      const answer = await harness.upload(owner.token, [{ queue_id: queue.id, method: "replace", name, items: [] }]);
      expect(answer.status).to.equal(201);
      expect(answer.body.data[0].item_count).to.equal(0);
      expect(await harness.allItems(owner.token, answer.body.data[0].id)).to.deep.equal([]);
    });
  });

  describe("append", () => {
    it("adds new values after the existing ones", async () => {
      const name = uniqueName("Cost centres");
      await harness.upload(owner.token, [{ queue_id: queue.id, method: "append", name, items: itemsNamed("a", 2) }]);
      const answer = await harness.upload(owner.token, [{ queue_id: queue.id, method: "append", name, items: itemsNamed("b", 2) }]);
      expect(answer.status).to.equal(201);
      expect(answer.body.data[0].item_count).to.equal(4);
      const items = await harness.allItems(owner.token, answer.body.data[0].id);
      expect(items.map((item) => item.value)).to.deep.equal(["a00001", "a00002", "b00001", "b00002"]);
    });

    it("of a value the register already has answers 409 naming it, and writes nothing of the upload", async () => {
      const name = uniqueName("Cost centres");
      const first = await harness.upload(owner.token, [{ queue_id: queue.id, method: "append", name, items: itemsNamed("a", 3) }]);
      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "append", name, items: [{ value: "fresh-1" }, { value: "a00002" }, { value: "fresh-2" }] },
      ]);
      expect(answer.status).to.equal(409);
      expect(answer.headers.get("content-type")).to.match(/^application\/problem\+json/);
      expect(answer.body.code).to.equal("duplicate_value");
      expect(answer.body.detail).to.include('"a00002"');
      expect(answer.body.values).to.deep.equal(["a00002"]);
      expect(answer.body.errors).to.deep.equal([
        { path: "0.items.1.value", message: 'The register already has an item with value "a00002".' },
      ]);

      const items = await harness.allItems(owner.token, first.body.data[0].id);
      expect(items.map((item) => item.value)).to.deep.equal(["a00001", "a00002", "a00003"]);
      const [register] = await harness.registersOf(owner.token, queue.id).then((all) => all.filter((r) => r.name === name));
      expect(register.item_count).to.equal(3);
    });
  });

  describe("upsert", () => {
    it("overwrites every field of known values in place and adds new values at the end", async () => {
      const name = uniqueName("Suppliers");
      const first = await harness.upload(owner.token, [
        {
          queue_id: queue.id,
          method: "upsert",
          name,
          items: [
            { value: "A", label: "Alpha", tax_id: "T-A" },
            { value: "B", label: "Beta" },
          ],
        },
      ]);
      const registerId = first.body.data[0].id;
      const before = await harness.allItems(owner.token, registerId);

      const answer = await harness.upload(owner.token, [
        {
          queue_id: queue.id,
          method: "upsert",
          name,
          items: [
            { value: "C", label: "Gamma" },
            { value: "A", label: "Alpha 2", data: { v: 2 } },
          ],
        },
      ]);
      expect(answer.status).to.equal(201);
      expect(answer.body.data[0].item_count).to.equal(3);
      const items = await harness.allItems(owner.token, registerId);
      expect(items.map((item) => [item.value, item.label])).to.deep.equal([
        ["A", "Alpha 2"],
        ["B", "Beta"],
        ["C", "Gamma"],
      ]);
      // An upsert describes the whole item: a field it leaves out is cleared.
      expect(items[0]).to.deep.include({ tax_id: null, data: { v: 2 }, id: before[0].id });
    });

    it("of the same items again changes nothing and keeps the count", async () => {
      const name = uniqueName("Suppliers");
      const items = itemsNamed("s", 50);
      await harness.upload(owner.token, [{ queue_id: queue.id, method: "upsert", name, items }]);
      const again = await harness.upload(owner.token, [{ queue_id: queue.id, method: "upsert", name, items }]);
      expect(again.status).to.equal(201);
      expect(again.body.data[0].item_count).to.equal(50);
    });
  });

  it("rejects a value named twice within one element with 409, whatever the method, writing nothing", async () => {
    for (const method of ["replace", "append", "upsert"]) {
      const name = uniqueName(`Twice ${method}`);
      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method, name, items: [{ value: "X" }, { value: "Y" }, { value: "X", label: "again" }] },
      ]);
      expect(answer.status, method).to.equal(409);
      expect(answer.body.code).to.equal("duplicate_value");
      expect(answer.body.errors).to.deep.equal([{ path: "0.items.2.value", message: 'Value "X" is also item 0 of this upload.' }]);
      expect((await harness.registersOf(owner.token, queue.id)).map((register) => register.name)).not.to.include(name);
    }
  });

  describe("the array", () => {
    it("is one transaction: when one element of three fails, nothing of the others is written", async () => {
      const [kept, appended, created] = [uniqueName("Kept"), uniqueName("Appended"), uniqueName("Created")];
      await harness.upload(owner.token, [
        { queue_id: queue.id, method: "replace", name: kept, items: itemsNamed("k", 5) },
        { queue_id: queue.id, method: "append", name: appended, items: itemsNamed("p", 5) },
      ]);
      const before = await harness.registersOf(owner.token, queue.id);

      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "replace", name: kept, items: itemsNamed("other", 2) },
        { queue_id: queue.id, method: "append", name: appended, items: [{ value: "new" }, { value: "p00003" }] },
        { queue_id: queue.id, method: "upsert", name: created, items: itemsNamed("c", 2) },
      ]);
      expect(answer.status).to.equal(409);
      expect(answer.body.errors[0].path).to.equal("1.items.1.value");

      const after = await harness.registersOf(owner.token, queue.id);
      expect(after).to.deep.equal(before);
      const keptRegister = after.find((register) => register.name === kept);
      expect((await harness.allItems(owner.token, keptRegister.id)).map((item) => item.value)).to.deep.equal(
        itemsNamed("k", 5).map((item) => item.value),
      );
    });

    it("is one transaction also when an element names an unknown queue: 404 naming the element, nothing written", async () => {
      const name = uniqueName("Never");
      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "replace", name, items: itemsNamed("n", 2) },
        { queue_id: "no-such-queue", method: "replace", name, items: itemsNamed("n", 2) },
      ]);
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal("queue_not_found");
      expect(answer.body.errors).to.deep.equal([{ path: "1.queue_id", message: "No queue no-such-queue." }]);
      expect((await harness.registersOf(owner.token, queue.id)).map((register) => register.name)).not.to.include(name);
    });

    it("applies its elements in order, so a later element sees an earlier one's items", async () => {
      const name = uniqueName("Ordered");
      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "replace", name, items: [{ value: "1" }] },
        { queue_id: queue.humanizedId, method: "append", name, items: [{ value: "2" }] },
        { queue_id: queue.id, method: "upsert", name, items: [{ value: "1", label: "one" }, { value: "3" }] },
      ]);
      expect(answer.status).to.equal(201);
      expect(answer.body.data).to.have.length(1);
      expect(answer.body.data[0].item_count).to.equal(3);
      const items = await harness.allItems(owner.token, answer.body.data[0].id);
      expect(items.map((item) => [item.value, item.label])).to.deep.equal([
        ["1", "one"],
        ["2", null],
        ["3", null],
      ]);
    });

    it("of several registers answers Location of the first one's items and every register touched as data", async () => {
      const otherQueue = harness.queue(organization);
      const [first, second] = [uniqueName("First"), uniqueName("Second")];
      const answer = await harness.upload(owner.token, [
        { queue_id: otherQueue.id, method: "replace", name: second, items: itemsNamed("s", 1) },
        { queue_id: queue.id, method: "replace", name: first, items: itemsNamed("f", 2) },
      ]);
      expect(answer.status).to.equal(201);
      expect(answer.body.data.map((register: { name: string }) => register.name)).to.deep.equal([second, first]);
      expect(answer.headers.get("location")).to.equal(`/api/v2/registers/${answer.body.data[0].id}/items`);
    });

    it("publishes register.updated through the outbox for every element, with the count it left, the uploader and the request", async () => {
      const recorder = await EventRecorder.start({ subjects: ["docex.register.>"], since: new Date(), label: "register" });
      try {
        const name = uniqueName("Evented");
        const answer = await harness.call("POST", "/registers", {
          token: owner.token,
          body: [
            { queue_id: queue.id, method: "replace", name, items: itemsNamed("e", 3) },
            { queue_id: queue.id, method: "append", name, items: itemsNamed("f", 2) },
          ],
        });
        expect(answer.status).to.equal(201);
        const registerId = answer.body.data[0].id;
        const replaced = await recorder.waitFor((e) => e.event.data.register_id === registerId && e.event.data.method === "replace");
        const appended = await recorder.waitFor((e) => e.event.data.register_id === registerId && e.event.data.method === "append");
        expect(replaced.event).to.include({ type: "register.updated", organization_id: organization });
        expect(replaced.event.data).to.deep.equal({ register_id: registerId, queue_id: queue.id, name, method: "replace", item_count: 3 });
        expect(appended.event.data.item_count).to.equal(5);
        expect(replaced.msgId).to.equal(replaced.event.id);
        expect(replaced.event.request_id).to.equal(answer.headers.get("x-request-id"));
        expect([replaced.event.actor_user_id, appended.event.actor_user_id]).to.deep.equal([owner.userId, owner.userId]);
      } finally {
        await recorder.stop();
      }
    });
  });

  describe("validation and limits", () => {
    it("answers 400 for an empty array", async () => {
      const answer = await harness.upload(owner.token, []);
      expect(answer.status).to.equal(400);
      expect(answer.body.code).to.equal("validation_failed");
    });

    it("answers 400 listing every bad field", async () => {
      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "merge", name: "X", items: [] },
        { queue_id: queue.id, method: "append", name: "", items: [{ value: "" }, { label: "no value" }] },
      ]);
      expect(answer.status).to.equal(400);
      const paths = answer.body.errors.map((error: { path: string }) => error.path);
      expect(paths).to.include.members(["0.method", "1.name", "1.items.0.value", "1.items.1.value"]);
    });

    it("answers 400 for text that Postgres cannot store (NUL), naming the field", async () => {
      const answer = await harness.upload(owner.token, [
        {
          queue_id: queue.id,
          method: "replace",
          name: "X",
          items: [{ value: "ok" }, { value: "b", label: "a\u0000b", data: { note: ["x\u0000"] } }],
        },
      ]);
      expect(answer.status).to.equal(400);
      expect(answer.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["0.items.1.label", "0.items.1.data"]);
    });

    it("answers 400 for a body that is not an array, and for malformed JSON", async () => {
      expect((await harness.upload(owner.token, { queue_id: queue.id, method: "replace", name: "X", items: [] })).status).to.equal(400);
      const malformed = await harness.call("POST", "/registers", { token: owner.token, rawBody: "[{" });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.code).to.equal("malformed_json");
    });

    it("answers 413 for more than 100,000 items in all, counted across elements, writing nothing", async () => {
      const name = uniqueName("Huge");
      const tiny = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ value: `${prefix}${index}` }));
      const answer = await harness.upload(owner.token, [
        { queue_id: queue.id, method: "replace", name, items: tiny(60_000, "a") },
        { queue_id: queue.id, method: "append", name, items: tiny(40_001, "b") },
      ]);
      expect(answer.status).to.equal(413);
      expect(answer.body.code).to.equal("payload_too_large");
      expect(answer.body.detail).to.include("100001");
      expect((await harness.registersOf(owner.token, queue.id)).map((register) => register.name)).not.to.include(name);
    });

    it("answers 413 for a body over 50 MiB", async () => {
      const body = JSON.stringify([
        { queue_id: queue.id, method: "replace", name: "X", items: [{ value: "x", data: { blob: "a".repeat(51 * 2 ** 20) } }] },
      ]);
      const answer = await harness.call("POST", "/registers", { token: owner.token, rawBody: body });
      expect(answer.status).to.equal(413);
    });

    it("answers 401 without a token", async () => {
      const answer = await harness.call("POST", "/registers", { body: [{ queue_id: queue.id, method: "replace", name: "X", items: [] }] });
      expect(answer.status).to.equal(401);
    });
  });

  describe("roles (API.md: owner, supervisor and admin of the queue create registers)", () => {
    const upload = (member: Member, queueRef: string, name: string) =>
      harness.upload(member.token, [{ queue_id: queueRef, method: "replace", name, items: itemsNamed("r", 1) }]);

    it("lets an owner, a supervisor, an admin of all queues and an admin of this queue upload", async () => {
      for (const member of [
        harness.member(organization, "supervisor"),
        harness.member(organization, "admin"),
        harness.member(organization, "admin", [queue.id]),
      ]) {
        expect((await upload(member, queue.id, uniqueName("Allowed"))).status).to.equal(201);
      }
    });

    it("answers 403 to an editor, approver or viewer of the queue", async () => {
      for (const role of ["editor", "approver", "viewer"] as const) {
        const answer = await upload(harness.member(organization, role), queue.id, uniqueName("Denied"));
        expect(answer.status, role).to.equal(403);
        expect(answer.body.errors).to.deep.equal([
          { path: "0.queue_id", message: `Your role does not allow managing the registers of queue ${queue.id}.` },
        ]);
      }
    });

    it("answers 404 to an admin limited to other queues, and for a queue of another organization", async () => {
      const elsewhere = harness.queue(organization);
      expect((await upload(harness.member(organization, "admin", [elsewhere.id]), queue.id, uniqueName("Hidden"))).status).to.equal(404);

      const foreignQueue = harness.queue(harness.organization());
      const answer = await upload(owner, foreignQueue.id, uniqueName("Foreign"));
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal("queue_not_found");
      expect((await upload(harness.stranger(), queue.id, uniqueName("Stranger"))).status).to.equal(404);
    });
  });
});
