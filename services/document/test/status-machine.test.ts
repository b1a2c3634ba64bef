import { DOCUMENT_STATUSES, type DocumentStatus } from "@docex/events";
import { expect } from "chai";
import { BLOCKED_BY_ERRORS, STATUS_TABLE } from "../src/domain/status-machine.js";
import { change } from "./support/changes.js";
import { documentFixture, Harness, queueFixture, type UserApi } from "./support/harness.js";

/** API.md "Status values and moves", transcribed here independently of the implementation's table. */
const API_MD_MOVES: Record<DocumentStatus, DocumentStatus[]> = {
  received: ["extracting", "extraction_failed", "deleted"],
  extracting: ["extraction_failed", "deleted"],
  extraction_failed: ["extracting", "deleted"],
  to_validate: ["in_approval", "ready_to_export", "postponed", "rejected", "deleted"],
  in_approval: ["ready_to_export", "to_validate", "rejected", "deleted"],
  ready_to_export: ["exporting", "exported", "to_validate", "deleted"],
  exporting: ["exported", "export_failed"],
  export_failed: ["exporting", "ready_to_export", "to_validate", "deleted"],
  postponed: ["to_validate", "deleted"],
  rejected: ["to_validate", "deleted"],
  exported: [],
  deleted: [],
};
const BLOCKED: DocumentStatus[] = ["in_approval", "ready_to_export", "exporting", "exported"];
const ALLOWED = (Object.entries(API_MD_MOVES) as [DocumentStatus, DocumentStatus[]][]).flatMap(([from, targets]) =>
  targets.map((to) => ({ from, to })),
);

type Step = { by: "status"; to: DocumentStatus } | { by: "extraction" };

/** The shortest way from `received` to `target` through allowed moves and the extraction result. */
function pathTo(target: DocumentStatus): Step[] {
  const paths = new Map<DocumentStatus, Step[]>([["received", []]]);
  const queue: DocumentStatus[] = ["received"];
  while (queue.length) {
    const from = queue.shift()!;
    const edges: Array<[DocumentStatus, Step]> = API_MD_MOVES[from].map((to) => [to, { by: "status", to }]);
    if (from === "received" || from === "extracting") edges.push(["to_validate", { by: "extraction" }]);
    for (const [to, step] of edges) {
      if (paths.has(to)) continue;
      paths.set(to, [...paths.get(from)!, step]);
      queue.push(to);
    }
  }
  const path = paths.get(target);
  if (!path) throw new Error(`${target} cannot be reached`);
  return path;
}

async function documentIn(api: UserApi, queueId: string, status: DocumentStatus): Promise<string> {
  const id = await documentFixture(api, queueId);
  for (const step of pathTo(status)) {
    const reply =
      step.by === "extraction"
        ? await api.post(`/documents/${id}/extraction`, { annotations: [], confidence: 80 })
        : await api.post(`/documents/${id}/status`, { status: step.to });
    if (reply.status !== 200) throw new Error(`driving to ${status}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return id;
}

describe("document status machine", () => {
  it("has exactly the moves of API.md, one row per status", () => {
    expect(Object.keys(STATUS_TABLE).sort()).to.deep.equal([...DOCUMENT_STATUSES].sort());
    for (const status of DOCUMENT_STATUSES) expect([...STATUS_TABLE[status].moves], status).to.have.members(API_MD_MOVES[status]);
    expect([...BLOCKED_BY_ERRORS]).to.have.members(BLOCKED);
  });

  describe("over HTTP (membership is an in-process test double)", function () {
    this.timeout(60_000);
    let h: Harness;
    let owner: UserApi;
    let queueId: string;
    let organizationId: string;

    before(async () => {
      h = await Harness.start();
      const fixture = await queueFixture(h, "status");
      owner = fixture.owner;
      queueId = fixture.queueId;
      organizationId = fixture.organization.id;
    });
    after(async () => {
      await h?.stop();
    });

    it(`makes every allowed move (${ALLOWED.length}) and publishes one document.status_changed per move, with the previous status`, async () => {
      const outcomes = await Promise.all(
        ALLOWED.map(async ({ from, to }) => {
          const id = await documentIn(owner, queueId, from);
          const reply = await owner.post(`/documents/${id}/status`, { status: to });
          return { from, to, id, reply, moves: pathTo(from).length + 1 };
        }),
      );
      for (const { from, to, reply } of outcomes) {
        expect(reply.status, `${from} → ${to}: ${JSON.stringify(reply.body)}`).to.equal(200);
        expect(reply.body.data.status).to.equal(to);
      }
      const total = outcomes.reduce((sum, outcome) => sum + outcome.moves, 0);
      const events = await h.events.settle(
        (recorded) => recorded.event.organization_id === organizationId && recorded.event.type === "document.status_changed",
        total,
      );
      expect(events).to.have.length(total);
      for (const { from, to, id, moves } of outcomes) {
        const mine = events.filter((recorded) => recorded.event.data.document_id === id);
        expect(mine, `${from} → ${to}`).to.have.length(moves);
        expect(mine.at(-1)!.event.data).to.include({ previous_status: from, status: to, queue_id: queueId });
      }
    });

    it("refuses forbidden moves with 409 naming the current status and the allowed ones, changing nothing", async () => {
      const samples: Array<[DocumentStatus, DocumentStatus]> = [
        ["received", "to_validate"],
        ["received", "exported"],
        ["extracting", "received"],
        ["to_validate", "exported"],
        ["to_validate", "to_validate"],
        ["in_approval", "postponed"],
        ["exporting", "deleted"],
        ["postponed", "ready_to_export"],
        ["exported", "to_validate"],
        ["deleted", "to_validate"],
      ];
      for (const [from, to] of samples) {
        const id = await documentIn(owner, queueId, from);
        const reply = await owner.post(`/documents/${id}/status`, { status: to });
        expect(reply.status, `${from} → ${to}`).to.equal(409);
        expect(reply.body).to.include({ code: "status_move_not_allowed", current_status: from });
        expect(reply.body.allowed_statuses).to.have.members(API_MD_MOVES[from]);
        expect(reply.body.detail).to.contain(from);
        expect((await owner.get(`/documents/${id}`)).body.data.status).to.equal(from);
      }
      const unknown = await owner.post(`/documents/${await documentFixture(owner, queueId)}/status`, { status: "archived" });
      expect(unknown.status).to.equal(400);
    });

    it("accepts the extraction result only in received or extracting", async () => {
      for (const status of ["received", "extracting"] as const) {
        const id = await documentIn(owner, queueId, status);
        const reply = await owner.post(`/documents/${id}/extraction`, { annotations: [], confidence: null });
        expect(reply.status).to.equal(200);
        expect(reply.body.data.status).to.equal("to_validate");
      }
      for (const status of ["extraction_failed", "to_validate", "exported"] as const) {
        const id = await documentIn(owner, queueId, status);
        const reply = await owner.post(`/documents/${id}/extraction`, { annotations: [], confidence: null });
        expect(reply.status, status).to.equal(409);
        expect(reply.body).to.include({ code: "extraction_not_accepted", current_status: status });
      }
    });

    it("blocks exactly in_approval, ready_to_export, exporting and exported while an error message exists, listing the messages", async () => {
      const outcomes = await Promise.all(
        ALLOWED.map(async ({ from, to }) => {
          const id = await documentIn(owner, queueId, from);
          const { document } = await h.grpc.getDocument({ document_id: id });
          const added = await h.grpc.applyDocumentChanges(
            change(id, {
              expected_version: document!.version,
              messages_json: JSON.stringify([
                { key: "total_due", message: "Total does not match the lines", severity: "error" },
                { key: null, message: "Supplier is new", severity: "warning" },
              ]),
            }),
          );
          if (!added.applied) throw new Error(`could not add the error message: ${added.reason}`);
          return { from, to, id, reply: await owner.post(`/documents/${id}/status`, { status: to }) };
        }),
      );
      for (const { from, to, reply } of outcomes) {
        if (BLOCKED.includes(to)) {
          expect(reply.status, `${from} → ${to}`).to.equal(409);
          expect(reply.body.code).to.equal("blocked_by_error_messages");
          expect(reply.body.messages).to.deep.equal([{ key: "total_due", message: "Total does not match the lines", severity: "error" }]);
          expect(reply.body.errors).to.deep.equal([{ path: "total_due", message: "Total does not match the lines" }]);
        } else {
          expect(reply.status, `${from} → ${to}`).to.equal(200);
        }
      }
    });

    it("lets the move through once the next validation answer has no error", async () => {
      const id = await documentIn(owner, queueId, "to_validate");
      const messages = JSON.stringify([{ key: "iban", message: "Unknown bank", severity: "error" }]);
      await h.grpc.applyDocumentChanges(change(id, { messages_json: messages, replace_messages: true }));
      expect((await owner.post(`/documents/${id}/status`, { status: "ready_to_export" })).status).to.equal(409);
      const refused = await h.grpc.applyDocumentChanges(change(id, { status: "ready_to_export" }));
      expect(refused).to.include({ applied: false, reason: "blocked_by_error_messages" });
      await h.grpc.applyDocumentChanges(change(id, { messages_json: "[]", replace_messages: true }));
      const moved = await owner.post(`/documents/${id}/status`, { status: "ready_to_export" });
      expect(moved.status).to.equal(200);
      expect(moved.body.data.messages).to.deep.equal([]);
    });
  });
});
