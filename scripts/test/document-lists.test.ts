import { randomUUID } from "node:crypto";
import { eventually, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

/**
 * The lists the validation workspace needs (issue 37), through the gateway against the whole stack: GET /documents
 * across queues and organizations, the filters and orders of the queue's list, the counts per status, and the 400 for
 * an unknown query parameter on the lists of every service.
 */
describe("document lists, search and counts through the gateway", function () {
  this.timeout(180_000);
  let stack: Stack;
  let owner = "";
  let viewer = "";
  const ids = { organization: "", other: "", workspace: "", queueA: "", queueB: "", queueC: "" };
  const docs = { acmeA: "", globexA: "", acmeB: "", acmeC: "" };

  /** API.md's document statuses. */
  const STATUSES = [
    "received",
    "extracting",
    "extraction_failed",
    "to_validate",
    "in_approval",
    "ready_to_export",
    "exporting",
    "exported",
    "export_failed",
    "postponed",
    "rejected",
    "deleted",
  ];
  const as = (token: string) => (method: string, path: string, body?: unknown) => stack.call(method, path, { token, body });
  async function must(answer: Promise<Answer>): Promise<Answer> {
    const settled = await answer;
    if (settled.status >= 300) throw new Error(`${settled.status} ${JSON.stringify(settled.body)}`);
    return settled;
  }
  const listed = async (token: string, path: string): Promise<string[]> => {
    const answer = await stack.call("GET", path, { token });
    expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).to.equal(200);
    return answer.body.data.map((document: { id: string }) => document.id);
  };

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    owner = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    const call = as(owner);
    ids.organization = (
      await eventually(async () => {
        const answer = await call("GET", "/organizations");
        return answer.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap");
      }, 20_000)
    ).id;
    ids.workspace = (await must(call("POST", "/workspaces", { organization_id: ids.organization, name: "Lists" }))).body.data.id;
    ids.queueA = (
      await must(call("POST", "/queues", { workspace_id: ids.workspace, name: "Lists A", extraction_engine: "external" }))
    ).body.data.id;
    ids.queueB = (
      await must(call("POST", "/queues", { workspace_id: ids.workspace, name: "Lists B", extraction_engine: "external" }))
    ).body.data.id;
    // A second organization of the same owner, whose documents the first one's members never see.
    ids.other = (await must(call("POST", "/organizations", { name: `Lists elsewhere ${stack.namespace}` }))).body.data.id;
    const otherWorkspace = (await must(call("POST", "/workspaces", { organization_id: ids.other, name: "Elsewhere" }))).body.data.id;
    ids.queueC = (
      await must(call("POST", "/queues", { workspace_id: otherWorkspace, name: "Lists C", extraction_engine: "external" }))
    ).body.data.id;

    const upload = async (queue: string, fileName: string, supplier: string, due: string, total: string) =>
      (
        await must(
          call("POST", `/queues/${queue}/documents`, {
            file_name: fileName,
            annotations: [
              { key: "invoice_id", value: `INV-${fileName}` },
              { key: "supplier_name", value: supplier },
              { key: "due_date", value: due },
              { key: "total_due", value: total },
            ],
          }),
        )
      ).body.data.id as string;
    docs.acmeA = await upload(ids.queueA, "a1.pdf", "ACME s.r.o.", "2026-03-01", "100");
    docs.globexA = await upload(ids.queueA, "a2.pdf", "Globex", "2026-01-01", "500");
    docs.acmeB = await upload(ids.queueB, "b1.pdf", "Acme Brno", "2026-02-01", "50");
    docs.acmeC = await upload(ids.queueC, "c1.pdf", "ACME elsewhere", "2026-02-15", "70");

    const email = `lists-viewer-${stack.namespace}@example.test`;
    await must(
      call("POST", `/organizations/${ids.organization}/assign-roles`, [
        { operation: "invite", email, role: "viewer", queue_ids: [ids.queueA] },
      ]),
    );
    const invitation = tokenIn(await stack.mail.waitForMail(email, 1, 15_000));
    await must(stack.call("POST", "/auth/change-password", { body: { token: invitation, password: "a viewer's long password" } }));
    viewer = (await stack.login(email, "a viewer's long password")).access_token;
  });

  it("filters by text, workspace, queue and status and sorts by due date and total, across the caller's organizations", async () => {
    const mine = new Set(Object.values(docs));
    const acme = (await listed(owner, "/documents?q=acme&page_size=100")).filter((id) => mine.has(id));
    expect(acme, "newest first, both organizations").to.deep.equal([docs.acmeC, docs.acmeB, docs.acmeA]);
    expect(await listed(owner, `/documents?q=acme&workspace_id=${ids.workspace}`)).to.deep.equal([docs.acmeB, docs.acmeA]);
    expect(await listed(owner, `/documents?q=INV-a2&queue_id=${ids.queueA}`)).to.deep.equal([docs.globexA]);
    expect(await listed(owner, `/queues/${ids.queueA}/documents?sort=due_date`)).to.deep.equal([docs.globexA, docs.acmeA]);
    expect(await listed(owner, `/queues/${ids.queueA}/documents?sort=-total_due`)).to.deep.equal([docs.globexA, docs.acmeA]);
    expect(await listed(owner, `/queues/${ids.queueA}/documents?sort=created_at&status=received`)).to.deep.equal([
      docs.acmeA,
      docs.globexA,
    ]);
    expect(await listed(owner, `/queues/${ids.queueA}/documents?q=globex&created_from=2000-01-01&created_to=2999-12-31`)).to.deep.equal([
      docs.globexA,
    ]);
  });

  it("shows a viewer only the queues of their membership; another organization's queue answers 404 as an unknown one", async () => {
    expect(await listed(viewer, "/documents?page_size=100")).to.have.members([docs.acmeA, docs.globexA]);
    expect(await listed(viewer, "/documents?q=acme")).to.deep.equal([docs.acmeA]);
    for (const path of [
      `/documents?queue_id=${ids.queueB}`,
      `/documents?queue_id=${ids.queueC}`,
      `/queues/${ids.queueC}/documents`,
      `/queues/${ids.queueC}/document-counts`,
      `/queues/${ids.queueB}/document-counts`,
    ]) {
      const theirs = await stack.call("GET", path, { token: viewer });
      const nobodys = await stack.call("GET", path.replace(/[0-9a-f-]{36}/, randomUUID()), { token: viewer });
      expect(theirs.status, path).to.equal(404);
      expect(theirs.body.code, path).to.equal(nobodys.body.code);
    }
  });

  it("answers an unknown query parameter on the lists of every service with a 400 problem naming it", async () => {
    for (const path of [
      "/documents?qq=acme",
      `/queues/${ids.queueA}/documents?queue_id=${ids.queueB}`,
      `/queues/${ids.queueA}/document-counts?status=received`,
      "/organizations?name=acme",
      `/organizations/${ids.organization}/raw-memberships?role=viewer`,
      `/queues/${ids.queueA}/registers?q=acme`,
      `/queues/${ids.queueA}/webhooks?type=queue_created`,
      `/queues/${ids.queueA}/accounting-automation-rules?sort=name`,
    ]) {
      const answer = await stack.call("GET", path, { token: owner });
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).to.equal(400);
      expect(answer.headers.get("content-type"), path).to.match(/^application\/problem\+json/);
      const name = new URL(path, "http://x").searchParams.keys().next().value;
      expect(
        answer.body.errors.map((error: { path: string }) => error.path),
        path,
      ).to.include(name);
    }
  });

  it("counts every status of a queue right after documents move", async () => {
    const counts = async () => (await must(stack.call("GET", `/queues/${ids.queueB}/document-counts`, { token: owner }))).body.data;
    const zero = Object.fromEntries(STATUSES.map((status) => [status, 0]));
    expect(await counts()).to.deep.equal({ ...zero, received: 1 });
    await must(as(owner)("POST", `/documents/${docs.acmeB}/extraction`, { annotations: [], confidence: 80 }));
    expect(await counts()).to.deep.equal({ ...zero, to_validate: 1 });
    await must(as(owner)("POST", `/documents/${docs.acmeB}/status`, { status: "postponed" }));
    expect(await counts()).to.deep.equal({ ...zero, postponed: 1 });
    expect(await listed(owner, `/queues/${ids.queueB}/documents?status=postponed`)).to.deep.equal([docs.acmeB]);
  });
});
