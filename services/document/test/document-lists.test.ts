import { DOCUMENT_STATUSES } from "@docex/events";
import { expect } from "chai";
import { change } from "./support/changes.js";
import { Harness, queueFixture, type UserApi } from "./support/harness.js";

type Listed = { id: string; queue_id: string; updated_at: string };

/** The filters, orders, counts and change feed of the document lists (issue 37), against real Postgres. */
describe("document lists: filters, search, sorting, counts and updated_since (membership is an in-process test double)", function () {
  this.timeout(60_000);
  let h: Harness;
  let owner: UserApi;
  let organizationId: string;
  let workspaceId: string;
  let queueId: string;
  let otherQueueId: string;
  const ids = { acme: "", globex: "", percent: "", later: "" };

  const upload = async (api: UserApi, queue: string, fileName: string, annotations: Array<{ key: string; value: string }>) => {
    const reply = await api.post(`/queues/${queue}/documents`, { file_name: fileName, annotations });
    if (reply.status !== 201) throw new Error(`upload: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data.id as string;
  };
  const listed = async (api: UserApi, path: string): Promise<string[]> => {
    const reply = await api.get(path);
    expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).to.equal(200);
    return reply.body.data.map((document: Listed) => document.id);
  };

  before(async () => {
    h = await Harness.start();
    const fixture = await queueFixture(h, "lists");
    ({ owner, queueId, workspaceId } = fixture);
    organizationId = fixture.organization.id;
    otherQueueId = (await owner.post("/queues", { workspace_id: workspaceId, name: "Other lists" })).body.data.id;
    // Uploaded in this order: created_at grows from acme to later.
    ids.acme = await upload(owner, queueId, "scan-0001.pdf", [
      { key: "invoice_id", value: "FV-2026-0042" },
      { key: "supplier_name", value: "ACME s.r.o." },
      { key: "supplier_tax_id", value: "CZ12345678" },
      { key: "due_date", value: "2026-03-15" },
      { key: "total_due", value: "1200.50" },
    ]);
    ids.globex = await upload(owner, queueId, "globex.pdf", [
      { key: "invoice_id", value: "G-7" },
      { key: "supplier_name", value: "Globex Corporation" },
      { key: "supplier_tax_id", value: "DE999888777" },
      { key: "due_date", value: "2026-01-31" },
      { key: "total_due", value: "99" },
    ]);
    ids.percent = await upload(owner, queueId, "100%_discount.pdf", [{ key: "total_due", value: "15000" }]);
    ids.later = await upload(owner, otherQueueId, "other-queue.pdf", [
      { key: "supplier_name", value: "Acme Holdings" },
      { key: "due_date", value: "2026-02-01" },
    ]);
  });
  after(async () => {
    await h?.stop();
  });

  it("searches the invoice number, supplier name and tax id and the file name, case-insensitive and partial, wildcards literal", async () => {
    expect(await listed(owner, `/queues/${queueId}/documents?q=acme`)).to.deep.equal([ids.acme]);
    expect(await listed(owner, `/queues/${queueId}/documents?q=2026-004`)).to.deep.equal([ids.acme]);
    expect(await listed(owner, `/queues/${queueId}/documents?q=de999`)).to.deep.equal([ids.globex]);
    expect(await listed(owner, `/queues/${queueId}/documents?q=GLOBEX.PDF`)).to.deep.equal([ids.globex]);
    expect(await listed(owner, `/queues/${queueId}/documents?q=${encodeURIComponent("100%_")}`)).to.deep.equal([ids.percent]);
    expect(await listed(owner, `/queues/${queueId}/documents?q=${encodeURIComponent("0%")}`)).to.deep.equal([ids.percent]);
    // A match never spans two fields, and control characters are not searched for.
    expect(await listed(owner, `/queues/${queueId}/documents?q=${encodeURIComponent("s.r.o.cz")}`)).to.deep.equal([]);
    expect(await listed(owner, `/queues/${queueId}/documents?q=${encodeURIComponent("ac\u0000me")}`)).to.deep.equal([ids.acme]);
    // Across the caller's queues: the other queue's Acme too, newest first.
    expect(await listed(owner, "/documents?q=acme")).to.deep.equal([ids.later, ids.acme]);
  });

  it("keeps the searched and sorted values in step with the annotations a user edits", async () => {
    const id = await upload(owner, otherQueueId, "edited.pdf", [{ key: "supplier_name", value: "Initech" }]);
    expect(await listed(owner, "/documents?q=initech")).to.deep.equal([id]);
    const edited = await owner.patch(`/documents/${id}/annotations`, {
      annotations: [
        { key: "supplier_name", value: "Umbrella plc" },
        { key: "total_due", value: "5" },
      ],
    });
    expect(edited.status).to.equal(200);
    expect(await listed(owner, "/documents?q=initech")).to.deep.equal([]);
    expect(await listed(owner, "/documents?q=umbrella")).to.deep.equal([id]);
    expect((await listed(owner, `/queues/${otherQueueId}/documents?sort=total_due`))[0]).to.equal(id);
    await owner.post(`/documents/${id}/status`, { status: "deleted" });
  });

  it("sorts by due date and total both ways, documents without the value last, and by creation", async () => {
    const base = `/queues/${queueId}/documents`;
    expect(await listed(owner, `${base}?sort=due_date`)).to.deep.equal([ids.globex, ids.acme, ids.percent]);
    expect(await listed(owner, `${base}?sort=-due_date`)).to.deep.equal([ids.acme, ids.globex, ids.percent]);
    expect(await listed(owner, `${base}?sort=total_due`)).to.deep.equal([ids.globex, ids.acme, ids.percent]);
    expect(await listed(owner, `${base}?sort=-total_due`)).to.deep.equal([ids.percent, ids.acme, ids.globex]);
    expect(await listed(owner, `${base}?sort=created_at`)).to.deep.equal([ids.acme, ids.globex, ids.percent]);
    expect(await listed(owner, base)).to.deep.equal([ids.percent, ids.globex, ids.acme]);
    expect(await listed(owner, "/documents?sort=due_date&page_size=2")).to.deep.equal([ids.globex, ids.later]);
  });

  it("filters by creation dates (a date includes its whole day), queue, workspace and status, combined", async () => {
    const created = (await owner.get(`/documents/${ids.globex}`)).body.data.created_at as string;
    const today = created.slice(0, 10);
    expect(await listed(owner, `/documents?created_from=${today}&created_to=${today}&queue_id=${queueId}`)).to.have.members([
      ids.acme,
      ids.globex,
      ids.percent,
    ]);
    expect(await listed(owner, `/documents?created_from=${encodeURIComponent(created)}&queue_id=${queueId}`)).to.deep.equal([
      ids.percent,
      ids.globex,
    ]);
    expect(await listed(owner, `/documents?created_to=${encodeURIComponent(created)}&queue_id=${queueId}`)).to.deep.equal([
      ids.globex,
      ids.acme,
    ]);
    expect(await listed(owner, "/documents?created_to=2000-01-01")).to.deep.equal([]);
    expect(await listed(owner, `/documents?workspace_id=${workspaceId}&q=acme`)).to.deep.equal([ids.later, ids.acme]);
    expect(await listed(owner, `/documents?queue_id=${otherQueueId}&status=received`)).to.deep.equal([ids.later]);
    // The queue's list is the path's queue: a queue_id or workspace_id beside it is an unknown parameter.
    const twice = await owner.get(`/queues/${queueId}/documents?queue_id=${otherQueueId}&workspace_id=${workspaceId}`);
    expect(twice.status).to.equal(400);
    expect(twice.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["queue_id", "workspace_id"]);
  });

  it("answers an unknown parameter and bad values with 400 naming each, never a 5xx", async () => {
    const unknown = await owner.get(`/documents?qq=acme&page=1`);
    expect(unknown.status).to.equal(400);
    expect(unknown.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(unknown.body.errors.map((error: { path: string }) => error.path)).to.deep.equal(["qq"]);
    expect((await owner.get(`/queues/${queueId}/documents?statuses=received`)).body.errors[0].path).to.equal("statuses");
    expect((await owner.get(`/queues/${queueId}/document-counts?status=received`)).status).to.equal(400);
    for (const query of [
      "created_from=2026-02-30",
      "created_to=tomorrow",
      "created_from=2026-03-02&created_to=2026-03-01",
      "updated_since=12345",
      "sort=supplier_name",
      "page_size=101",
      "assigned_to_me=maybe",
      "status=archived",
      `q=${"x".repeat(201)}`,
    ]) {
      const reply = await owner.get(`/documents?${query}`);
      expect(reply.status, query).to.equal(400);
      expect(reply.body.errors, query).to.have.length.greaterThan(0);
    }
  });

  it("lists across organizations only what each membership lets the caller read; another organization's ids answer 404", async () => {
    const theirs = await queueFixture(h, "strangers");
    const foreign = await upload(theirs.owner, theirs.queueId, "acme-foreign.pdf", [{ key: "supplier_name", value: "ACME" }]);
    expect(await listed(owner, "/documents?q=acme&page_size=100")).to.not.include(foreign);
    expect((await owner.get(`/documents?queue_id=${theirs.queueId}`)).status).to.equal(404);
    expect((await owner.get(`/documents?workspace_id=${theirs.workspaceId}`)).status).to.equal(404);
    expect((await owner.get(`/queues/${theirs.queueId}/documents`)).status).to.equal(404);
    expect((await owner.get(`/queues/${theirs.queueId}/document-counts`)).status).to.equal(404);

    // A viewer of one queue of the first organization who also owns the second sees both, and nothing else.
    const viewer = h.member(organizationId, "viewer", [otherQueueId]);
    h.double.setRole(theirs.organization.id, viewer.userId, "owner");
    expect(await listed(viewer, "/documents?page_size=100")).to.have.members([ids.later, foreign]);
    expect((await viewer.get(`/documents?queue_id=${queueId}`)).status).to.equal(404);
    expect((await viewer.get(`/queues/${queueId}/documents`)).status).to.equal(404);
  });

  it("shows an approver only what is assigned, and assigned_to_me narrows anyone's list to what they approve", async () => {
    const approver = h.member(organizationId, "approver");
    const supervisor = h.member(organizationId, "supervisor");
    const assignment = await h.grpc.applyDocumentChanges(change(ids.globex, { source: "automation", approvers: [approver.userId] }));
    expect(assignment.applied).to.equal(true);
    expect(await listed(approver, "/documents")).to.deep.equal([ids.globex]);
    expect(await listed(approver, `/queues/${queueId}/documents`)).to.deep.equal([ids.globex]);
    expect(await listed(owner, "/documents?assigned_to_me=true")).to.deep.equal([]);
    const both = await h.grpc.applyDocumentChanges(
      change(ids.acme, { source: "automation", approvers: [approver.userId, supervisor.userId] }),
    );
    expect(both.applied).to.equal(true);
    expect(await listed(supervisor, "/documents?assigned_to_me=true")).to.deep.equal([ids.acme]);
    expect(await listed(supervisor, "/documents?assigned_to_me=false&page_size=100")).to.include.members([ids.acme, ids.globex]);
    const counts = (await approver.get(`/queues/${queueId}/document-counts`)).body.data;
    expect(counts.received).to.equal(2);
  });

  it("counts every status of a queue, zeros included, and follows status changes at once", async () => {
    const { owner: counter, queueId: countedQueue } = await queueFixture(h, "counts");
    const zero = await counter.get(`/queues/${countedQueue}/document-counts`);
    expect(zero.status).to.equal(200);
    expect(zero.body).to.deep.equal({ data: Object.fromEntries(DOCUMENT_STATUSES.map((status) => [status, 0])) });
    const first = await upload(counter, countedQueue, "a.pdf", []);
    await upload(counter, countedQueue, "b.pdf", []);
    expect((await counter.post(`/documents/${first}/status`, { status: "deleted" })).status).to.equal(200);
    const counts = (await counter.get(`/queues/${countedQueue}/document-counts`)).body.data;
    expect(counts).to.deep.equal({ ...Object.fromEntries(DOCUMENT_STATUSES.map((status) => [status, 0])), received: 1, deleted: 1 });
  });

  it("lists what changed since an instant, oldest change first, deleted documents included", async () => {
    const { owner: watcher, queueId: watched } = await queueFixture(h, "changes");
    const kept = await upload(watcher, watched, "kept.pdf", []);
    const gone = await upload(watcher, watched, "gone.pdf", []);
    const page = (await watcher.get(`/queues/${watched}/documents?sort=-updated_at`)).body.data as Listed[];
    const since = page[0]!.updated_at;
    expect(page.map((document) => document.id)).to.deep.equal([gone, kept]);

    await watcher.post(`/documents/${gone}/status`, { status: "deleted" });
    await watcher.patch(`/documents/${kept}/annotations`, { annotations: [{ key: "contract", value: "C-9" }] });
    const changed = (await watcher.get(`/documents?updated_since=${encodeURIComponent(since)}&queue_id=${watched}`)).body.data as Listed[];
    expect(changed.map((document) => document.id)).to.deep.equal([gone, kept]);
    const later = changed.at(-1)!.updated_at;
    const next = await watcher.get(`/queues/${watched}/documents?updated_since=${encodeURIComponent(later)}`);
    expect(next.body.data.map((document: Listed) => document.id)).to.deep.equal([kept]);
    const future = new Date(Date.parse(later) + 60_000).toISOString();
    expect(await listed(watcher, `/queues/${watched}/documents?updated_since=${encodeURIComponent(future)}`)).to.deep.equal([]);
  });
});
