import { eventually, tokenIn } from "@docex/testkit";
import { invoicePdf, makeInvoice } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

/**
 * The permission table of API.md "Roles (per organization)", cell by cell, through the gateway against the
 * whole stack: one organization with a workspace, queues A and B, a member of every role (admin, editor,
 * approver and viewer limited to queue A by queue_ids), and for every operation of the table the exact answer
 * each role gets.
 *
 * Outcomes: `ok` is the operation's success status; 403 is "authenticated, but the role does not allow it"
 * (API.md "Conventions"); 404 is what a member gets for what it may not see. API.md does not name the answer
 * for a queue outside a member's queue_ids; every service answers it as it answers an id of another
 * organization, 404 (document, automation, learning, register and webhook `access.ts`: "ids of other
 * organizations and of queues outside a member's queue_ids do not leak"), and so does this matrix. An approver
 * "reads assigned only": a document not assigned to it is not visible (404), an assigned one is (200), and it
 * may approve (in_approval → ready_to_export) or reject (→ rejected) an assigned one, nothing else (403).
 *
 * Cells that change state get resources of their own (`prepare`, run for every role before the cells) or undo
 * what they did (`cleanup`), so no cell depends on another.
 */

const ROLES = ["owner", "supervisor", "admin", "editor", "approver", "viewer"] as const;
type Role = (typeof ROLES)[number];
type Outcome = "ok" | 403 | 404;

/** One row of the matrix, in the column order of API.md's table. */
function row(owner: Outcome, supervisor: Outcome, admin: Outcome, editor: Outcome, approver: Outcome, viewer: Outcome) {
  return { owner, supervisor, admin, editor, approver, viewer } satisfies Record<Role, Outcome>;
}

/** API.md "manage users": whose membership each role may change (never its own). */
const MANAGES: Record<Role, readonly Role[]> = {
  owner: ROLES,
  supervisor: ["admin", "editor", "approver", "viewer"],
  admin: ["editor", "viewer"],
  editor: [],
  approver: [],
  viewer: [],
};

// Rows that recur. "Unassigned" / "assigned": a document of queue A not assigned / assigned to the approver.
const EVERYONE = row("ok", "ok", "ok", "ok", "ok", "ok");
const READERS_OF_UNASSIGNED = row("ok", "ok", "ok", "ok", 404, "ok");
const OUTSIDE_QUEUE_IDS = row("ok", "ok", 404, 404, 404, 404);
const EDITORS_OF_UNASSIGNED = row("ok", "ok", "ok", "ok", 404, 403);
const EDITORS = row("ok", "ok", "ok", "ok", 403, 403);
const APPROVERS = row("ok", "ok", "ok", "ok", "ok", 403);
const OWNER_AND_SUPERVISOR = row("ok", "ok", 403, 403, 403, 403);
const QUEUE_MANAGERS = row("ok", "ok", "ok", 403, 403, 403);
const NOBODY = row(403, 403, 403, 403, 403, 403);

function managersOf(target: Role): Record<Role, Outcome> {
  return Object.fromEntries(ROLES.map((caller) => [caller, MANAGES[caller].includes(target) ? "ok" : 403])) as Record<Role, Outcome>;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

interface Operation {
  name: string;
  expect: Record<Role, Outcome>;
  /** The status(es) of success. */
  ok: number | readonly number[];
  /** A resource of the cell's own (a document id), made before the cells run. */
  prepare?: (role: Role) => Promise<string>;
  call: (role: Role, prepared: string) => Call;
  /** What else is wrong with an answer that has the expected status. */
  check?: (role: Role, answer: Answer) => string | undefined;
  /** Undoes what a successful cell did, before the next cell runs. */
  cleanup?: () => Promise<void>;
}

describe("the role matrix of API.md through the gateway", function () {
  this.timeout(120_000);
  let stack: Stack;
  const tokens = {} as Record<Role, string>;
  /** The members the matrix acts on: one of each role, none of them a caller. */
  const targets = {} as Record<Role, string>;
  const userIds = {} as Record<Role, string>;
  const ids = {
    organization: "",
    workspace: "",
    queueA: "",
    queueB: "",
    unassigned: "",
    assigned: "",
    inB: "",
    exportA: "",
    runA: "",
    batchA: "",
    withFile: "",
  };
  let documentCount = 0;
  let cells = 0;
  let setUpFrom = 0;
  let cellsFrom = 0;

  const asOwner = (method: string, path: string, body?: unknown) => stack.call(method, path, { token: tokens.owner, body });

  async function created(answer: Promise<Answer>, what: string): Promise<Answer> {
    const settled = await answer;
    if (settled.status >= 300) throw new Error(`${what}: ${settled.status} ${JSON.stringify(settled.body)}`);
    return settled;
  }

  type Kind = "received" | "to_validate" | "assigned" | "assigned_in_approval" | "in_approval";

  /** A fresh document of queue A or B, made by the owner and brought to `kind`. */
  async function newDocument(queue: "A" | "B", kind: Kind): Promise<string> {
    documentCount += 1;
    const queueId = queue === "A" ? ids.queueA : ids.queueB;
    const uploaded = await created(asOwner("POST", `/queues/${queueId}/documents`, { file_name: `matrix-${documentCount}.pdf` }), "upload");
    const id: string = uploaded.body.data.id;
    if (kind === "received") return id;
    const assigned = kind === "assigned" || kind === "assigned_in_approval";
    const invoiceId = assigned ? "FOR-APPROVER" : `INV-${documentCount}`;
    await created(
      asOwner("POST", `/documents/${id}/extraction`, { annotations: [{ key: "invoice_id", value: invoiceId }], confidence: 80 }),
      "extraction",
    );
    if (assigned) {
      // Approval automation assigns the approver once document.extracted reaches it.
      await eventually(async () => {
        const answer = await asOwner("GET", `/documents/${id}`);
        return answer.body?.data?.approvers?.includes(userIds.approver) ? true : undefined;
      }, 20_000);
    }
    if (kind === "assigned_in_approval" || kind === "in_approval") {
      await created(asOwner("POST", `/documents/${id}/status`, { status: "in_approval" }), "to in_approval");
    }
    return id;
  }

  const relearn = (value: string) => ({ name: "Role Matrix Supplier", register_id: null, tax_id: null, value, field_key: "contract" });
  const rule = (action: string, params: unknown) => ({
    name: `Matrix ${action}`,
    action,
    params,
    conditions: { match: "all", rules: [{ field: "invoice_id", operator: "eq", value: "NEVER-MATCHES" }] },
  });
  const register = (queueId: string) => [{ queue_id: queueId, method: "upsert", name: "Matrix", items: [{ value: "x", label: "X" }] }];
  // One entity has one webhook per type and url (409 else): every cell its own url.
  const webhook = (role: Role, entityType: string, entityId: string) => ({
    url: `http://127.0.0.1:9/matrix/${role}`,
    entity_type: entityType,
    entity_id: entityId,
  });
  const link = { url: "http://127.0.0.1:9/matrix-validation", type: "document_validation", signature_verification: "disabled" };
  const removeLink = async () => {
    await asOwner("DELETE", `/queues/${ids.queueA}/external-validation-links/document_validation`);
  };

  const OPERATIONS: Operation[] = [
    // Reading (API.md: the organization's workspaces, queues and documents, within queue_ids; approvers what is assigned).
    {
      name: "read the organization",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/organizations/${ids.organization}` }),
    },
    { name: "read the workspace", expect: EVERYONE, ok: 200, call: () => ({ method: "GET", path: `/workspaces/${ids.workspace}` }) },
    { name: "read queue A", expect: EVERYONE, ok: 200, call: () => ({ method: "GET", path: `/queues/${ids.queueA}` }) },
    { name: "read queue B", expect: OUTSIDE_QUEUE_IDS, ok: 200, call: () => ({ method: "GET", path: `/queues/${ids.queueB}` }) },
    {
      name: "list the workspaces",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/organizations/${ids.organization}/workspaces` }),
      check: (_role, answer) =>
        answer.body.data.some((workspace: { id: string }) => workspace.id === ids.workspace) ? undefined : "the workspace is not listed",
    },
    {
      name: "list the queues",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/workspaces/${ids.workspace}/queues?page_size=100` }),
      check: (role, answer) => {
        const listed = answer.body.data.map((queue: { id: string }) => queue.id);
        const limited = role !== "owner" && role !== "supervisor";
        if (!listed.includes(ids.queueA)) return "queue A is not listed";
        return listed.includes(ids.queueB) === !limited ? undefined : `queue B is ${limited ? "" : "not "}listed`;
      },
    },
    // Changing the hierarchy (API.md: like creating it: the organization and workspaces by owners and supervisors,
    // queues by who manages them).
    {
      name: "rename the organization",
      expect: OWNER_AND_SUPERVISOR,
      ok: 200,
      call: (role) => ({ method: "PATCH", path: `/organizations/${ids.organization}`, body: { name: `Matrix (${role})` } }),
    },
    {
      name: "rename the workspace",
      expect: OWNER_AND_SUPERVISOR,
      ok: 200,
      call: (role) => ({ method: "PATCH", path: `/workspaces/${ids.workspace}`, body: { name: `Matrix workspace (${role})` } }),
    },
    {
      name: "delete an empty queue",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 204,
      prepare: async (role) =>
        (await created(asOwner("POST", "/queues", { workspace_id: ids.workspace, name: `Doomed (${role})` }), "queue")).body.data.id,
      call: (_role, id) => ({ method: "DELETE", path: `/queues/${id}` }),
    },
    {
      name: "delete an empty workspace",
      expect: OWNER_AND_SUPERVISOR,
      ok: 204,
      prepare: async (role) =>
        (await created(asOwner("POST", "/workspaces", { organization_id: ids.organization, name: `Doomed (${role})` }), "workspace")).body
          .data.id,
      call: (_role, id) => ({ method: "DELETE", path: `/workspaces/${id}` }),
    },
    {
      name: "change queue A",
      expect: QUEUE_MANAGERS,
      ok: 200,
      call: (role) => ({ method: "PATCH", path: `/queues/${ids.queueA}`, body: { name: `Queue A (${role})` } }),
    },
    {
      name: "give queue A's inbox a new address",
      expect: QUEUE_MANAGERS,
      ok: 200,
      call: () => ({ method: "POST", path: `/queues/${ids.queueA}/inbox-email` }),
    },
    {
      name: "configure an export of queue A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: (role) => ({
        method: "POST",
        path: `/queues/${ids.queueA}/exports`,
        body: { name: `CSV (${role})`, format: "csv", trigger: "manual" },
      }),
    },
    {
      name: "change an export of queue A",
      expect: QUEUE_MANAGERS,
      ok: 200,
      call: (role) => ({ method: "PATCH", path: `/exports/${ids.exportA}`, body: { name: `JSON (${role})` } }),
    },
    {
      name: "list queue A's exports",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueA}/exports` }),
    },
    {
      name: "run an export of queue A on an unassigned document",
      expect: EDITORS,
      ok: 201,
      call: () => ({ method: "POST", path: `/exports/${ids.exportA}/runs`, body: { document_ids: [ids.unassigned] } }),
    },
    {
      name: "read an export run of queue A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/export-runs/${ids.runA}` }),
    },
    {
      name: "download an export run's file of queue A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/export-runs/${ids.runA}/file` }),
    },
    {
      name: "delete an export of queue A",
      expect: QUEUE_MANAGERS,
      ok: 204,
      prepare: async (role) =>
        (
          await created(
            asOwner("POST", `/queues/${ids.queueA}/exports`, { name: `Doomed (${role})`, format: "json", trigger: "manual" }),
            "export",
          )
        ).body.data.id,
      call: (_role, id) => ({ method: "DELETE", path: `/exports/${id}` }),
    },
    {
      // Recording an integrator's outcome is changing the document's status: who may edit it.
      name: "record an export result of an unassigned document ready to export",
      expect: EDITORS_OF_UNASSIGNED,
      ok: 200,
      prepare: async () => {
        const id = await newDocument("A", "to_validate");
        await created(asOwner("POST", `/documents/${id}/status`, { status: "ready_to_export" }), "ready to export");
        return id;
      },
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/export-result`, body: { status: "exported", external_id: "ERP-1" } }),
    },
    {
      // A batch pays money: who manages the queue.
      name: "make a payment batch of queue A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: () => ({
        method: "POST",
        path: `/queues/${ids.queueA}/payment-batches`,
        body: { format: "abo", debtor_account: "2400123456/2010", execution_date: "2024-05-01", status: "exported" },
      }),
    },
    {
      name: "read a payment batch of queue A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/payment-batches/${ids.batchA}` }),
    },
    {
      name: "run an export of queue A by filter",
      expect: EDITORS,
      ok: 201,
      call: () => ({ method: "POST", path: `/exports/${ids.exportA}/runs`, body: { filter: { status: ["to_validate", "exported"] } } }),
    },
    {
      name: "download a payment batch's file of queue A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/payment-batches/${ids.batchA}/file` }),
    },
    {
      // Who may mail a queue is the organization's call, not a queue admin's (services/intake/DECISIONS.md).
      name: "restrict who may mail queue A",
      expect: OWNER_AND_SUPERVISOR,
      ok: 200,
      call: () => ({ method: "PATCH", path: `/queues/${ids.queueA}`, body: { inbox_allowed_senders: [] } }),
    },
    {
      name: "change queue B",
      expect: row("ok", "ok", 404, 404, 404, 404),
      ok: 200,
      call: (role) => ({ method: "PATCH", path: `/queues/${ids.queueB}`, body: { name: `Queue B (${role})` } }),
    },
    {
      name: "list documents of queue A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueA}/documents?page_size=100` }),
      check: (role, answer) => {
        const listed: Array<{ id: string; approvers: string[] }> = answer.body.data;
        const has = (id: string) => listed.some((document) => document.id === id);
        if (!has(ids.assigned)) return "the document assigned to the approver is not listed";
        if (role !== "approver") return has(ids.unassigned) ? undefined : "an unassigned document is not listed";
        const foreign = listed.filter((document) => !document.approvers.includes(userIds.approver));
        return foreign.length ? `the approver is shown ${foreign.length} document(s) not assigned to it` : undefined;
      },
    },
    {
      name: "list documents of queue B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueB}/documents` }),
    },
    {
      name: "list every document the caller may read (GET /documents)",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents?workspace_id=${ids.workspace}&page_size=100` }),
      check: (role, answer) => {
        const listed: Array<{ id: string; approvers: string[] }> = answer.body.data;
        const has = (id: string) => listed.some((document) => document.id === id);
        if (!has(ids.assigned)) return "the document assigned to the approver is not listed";
        const limited = role !== "owner" && role !== "supervisor";
        if (has(ids.inB) === limited) return `the document of queue B is ${limited ? "" : "not "}listed`;
        if (role !== "approver") return has(ids.unassigned) ? undefined : "an unassigned document is not listed";
        const foreign = listed.filter((document) => !document.approvers.includes(userIds.approver));
        return foreign.length ? `the approver is shown ${foreign.length} document(s) not assigned to it` : undefined;
      },
    },
    {
      name: "count the documents of queue A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueA}/document-counts` }),
      check: (role, answer) => {
        const total = Object.values(answer.body.data as Record<string, number>).reduce((sum, count) => sum + count, 0);
        // The approver counts its assigned document only; the others the assigned and the unassigned one at least.
        const least = role === "approver" ? 1 : 2;
        return total >= least ? undefined : `${total} documents counted, ${least} or more are readable`;
      },
    },
    {
      name: "count the documents of queue B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueB}/document-counts` }),
    },
    {
      name: "read an unassigned document of A",
      expect: READERS_OF_UNASSIGNED,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.unassigned}` }),
    },
    {
      name: "read an assigned document of A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.assigned}` }),
    },
    { name: "read a document of B", expect: OUTSIDE_QUEUE_IDS, ok: 200, call: () => ({ method: "GET", path: `/documents/${ids.inB}` }) },
    // The pages API: the same access as reading the document.
    {
      name: "list the pages of an unassigned document of A",
      expect: READERS_OF_UNASSIGNED,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.unassigned}/pages` }),
    },
    {
      name: "list the pages of an assigned document of A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.assigned}/pages` }),
    },
    {
      name: "list the pages of a document of B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.inB}/pages` }),
    },
    {
      name: "read the words of a page of an unassigned document of A (a PDF)",
      expect: READERS_OF_UNASSIGNED,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.withFile}/pages/1/words` }),
    },
    {
      name: "see a page of an unassigned document of A (a PDF)",
      expect: READERS_OF_UNASSIGNED,
      ok: 200,
      call: () => ({ method: "GET", path: `/documents/${ids.withFile}/pages/1?width=200` }),
    },
    {
      name: "read the registers of A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueA}/registers` }),
    },
    {
      name: "read the accounting rules of A",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/queues/${ids.queueA}/accounting-automation-rules` }),
    },
    { name: "read the webhooks of A", expect: EVERYONE, ok: 200, call: () => ({ method: "GET", path: `/queues/${ids.queueA}/webhooks` }) },

    // Editing annotations, uploading, recording an extraction (edit the queue's documents).
    {
      name: "edit annotations of an unassigned document of A",
      expect: EDITORS_OF_UNASSIGNED,
      ok: 200,
      call: (role) => ({
        method: "PATCH",
        path: `/documents/${ids.unassigned}/annotations`,
        body: { annotations: [{ key: "contract", value: `C-${role}` }] },
      }),
    },
    {
      name: "edit annotations of an assigned document of A",
      expect: EDITORS,
      ok: 200,
      call: (role) => ({
        method: "PATCH",
        path: `/documents/${ids.assigned}/annotations`,
        body: { annotations: [{ key: "contract", value: `C-${role}` }] },
      }),
    },
    {
      name: "edit annotations of a document of B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: (role) => ({
        method: "PATCH",
        path: `/documents/${ids.inB}/annotations`,
        body: { annotations: [{ key: "contract", value: `C-${role}` }] },
      }),
    },
    {
      name: "upload a document to A",
      expect: EDITORS,
      ok: 201,
      call: (role) => ({ method: "POST", path: `/queues/${ids.queueA}/documents`, body: { file_name: `upload-${role}.pdf` } }),
    },
    {
      name: "upload a document to B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 201,
      call: (role) => ({ method: "POST", path: `/queues/${ids.queueB}/documents`, body: { file_name: `upload-${role}.pdf` } }),
    },
    {
      name: "record the extraction of a document of A",
      expect: EDITORS_OF_UNASSIGNED,
      ok: 200,
      prepare: () => newDocument("A", "received"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/extraction`, body: { annotations: [], confidence: 50 } }),
    },

    // Changing document status; approvers approve or reject what is assigned to them.
    {
      name: "change the status of an unassigned document of A (to_validate → postponed)",
      expect: EDITORS_OF_UNASSIGNED,
      ok: 200,
      prepare: () => newDocument("A", "to_validate"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "postponed" } }),
    },
    {
      name: "change the status of an assigned document of A (to_validate → postponed)",
      expect: EDITORS,
      ok: 200,
      prepare: () => newDocument("A", "assigned"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "postponed" } }),
    },
    // in_approval → ready_to_export is the route's decision (the assigned approver's) or an owner's or supervisor's
    // override; an admin or editor not on the route may not skip it (403 approval_required).
    {
      name: "approve an assigned document of A (in_approval → ready_to_export)",
      expect: row("ok", "ok", 403, 403, "ok", 403),
      ok: 200,
      prepare: () => newDocument("A", "assigned_in_approval"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "ready_to_export" } }),
      check: (_role, answer) => (answer.body.data.status === "ready_to_export" ? undefined : `status ${answer.body.data.status}`),
    },
    {
      name: "reject an assigned document of A (in_approval → rejected)",
      expect: APPROVERS,
      ok: 200,
      prepare: () => newDocument("A", "assigned_in_approval"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "rejected" } }),
      check: (_role, answer) => (answer.body.data.status === "rejected" ? undefined : `status ${answer.body.data.status}`),
    },
    // POST /approve and /reject: only an approver of the current stage decides (API.md); the others who see the
    // document are not approvers of it (403 not_an_approver), the viewer may not approve at all.
    {
      name: "approve an assigned document of A (POST /approve)",
      expect: row(403, 403, 403, 403, "ok", 403),
      ok: 200,
      prepare: () => newDocument("A", "assigned_in_approval"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/approve` }),
      check: (_role, answer) => (answer.body.data.status === "ready_to_export" ? undefined : `status ${answer.body.data.status}`),
    },
    {
      name: "reject an assigned document of A (POST /reject)",
      expect: row(403, 403, 403, 403, "ok", 403),
      ok: 200,
      prepare: () => newDocument("A", "assigned_in_approval"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/reject` }),
    },
    {
      name: "approve an unassigned document of A (in_approval → ready_to_export)",
      expect: row("ok", "ok", 403, 403, 404, 403),
      ok: 200,
      prepare: () => newDocument("A", "in_approval"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "ready_to_export" } }),
    },
    {
      name: "send an assigned document of A back to validation (in_approval → to_validate)",
      expect: EDITORS,
      ok: 200,
      prepare: () => newDocument("A", "assigned_in_approval"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "to_validate" } }),
    },
    {
      name: "change the status of a document of B (to_validate → postponed)",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      prepare: () => newDocument("B", "to_validate"),
      call: (_role, id) => ({ method: "POST", path: `/documents/${id}/status`, body: { status: "postponed" } }),
    },

    // Learn and relearn (API.md: the same row as editing).
    {
      name: "learn from an unassigned document of A",
      expect: EDITORS_OF_UNASSIGNED,
      ok: 204,
      call: () => ({
        method: "POST",
        path: `/documents/${ids.unassigned}/learn`,
        body: { annotations: { invoice_id: [{ value: "INV-L" }] } },
      }),
    },
    {
      name: "learn from an assigned document of A",
      expect: EDITORS,
      ok: 204,
      call: () => ({
        method: "POST",
        path: `/documents/${ids.assigned}/learn`,
        body: { annotations: { invoice_id: [{ value: "INV-L" }] } },
      }),
    },
    {
      name: "learn from a document of B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 204,
      call: () => ({ method: "POST", path: `/documents/${ids.inB}/learn`, body: { annotations: { invoice_id: [{ value: "INV-L" }] } } }),
    },
    {
      name: "relearn for an unassigned document of A",
      expect: EDITORS_OF_UNASSIGNED,
      ok: 204,
      call: (role) => ({ method: "POST", path: `/documents/${ids.unassigned}/relearn`, body: relearn(`R-${role}`) }),
    },
    {
      name: "relearn for an assigned document of A",
      expect: EDITORS,
      ok: 204,
      call: (role) => ({ method: "POST", path: `/documents/${ids.assigned}/relearn`, body: relearn(`R-${role}`) }),
    },
    {
      name: "relearn for queue A",
      expect: EDITORS,
      ok: 204,
      call: (role) => ({ method: "POST", path: `/queues/${ids.queueA}/relearn`, body: relearn(`Q-${role}`) }),
    },
    {
      name: "relearn for queue B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 204,
      call: (role) => ({ method: "POST", path: `/queues/${ids.queueB}/relearn`, body: relearn(`Q-${role}`) }),
    },

    // Creating workspaces and queues. An admin limited to queue A has no queue to create another in: a new
    // queue lies outside its own queues.
    {
      name: "create a workspace",
      expect: OWNER_AND_SUPERVISOR,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/workspaces", body: { organization_id: ids.organization, name: `Matrix ${role}` } }),
    },
    {
      name: "create a queue",
      expect: OWNER_AND_SUPERVISOR,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/queues", body: { workspace_id: ids.workspace, name: `Matrix ${role}` } }),
    },

    // Automation and extraction evaluation: owners, supervisors, admins of their own queues.
    {
      name: "switch accounting automation of A",
      expect: QUEUE_MANAGERS,
      ok: 200,
      call: () => ({ method: "PATCH", path: `/queues/${ids.queueA}/accounting-automation`, body: { status: "disabled" } }),
    },
    {
      name: "create an accounting rule in A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: () => ({
        method: "POST",
        path: `/queues/${ids.queueA}/accounting-automation-rules`,
        body: rule("apply_accounting_automation", { set: { contract: "C-rule" } }),
      }),
    },
    {
      name: "create an approval rule in A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: () => ({
        method: "POST",
        path: `/queues/${ids.queueA}/approval-automation`,
        body: rule("assign_approvers", { approver_ids: [userIds.approver] }),
      }),
    },
    {
      name: "switch all automation rules of A",
      expect: QUEUE_MANAGERS,
      ok: 200,
      // Stays on: the approval rule that assigns the approver lives in A.
      call: () => ({ method: "PATCH", path: `/queues/${ids.queueA}/automation-rules`, body: { status: "enabled" } }),
    },
    {
      name: "configure extraction evaluation of A",
      expect: QUEUE_MANAGERS,
      ok: 200,
      call: () => ({ method: "PUT", path: `/queues/${ids.queueA}/extraction-evaluation`, body: { document_confidence: 99, fields: [] } }),
    },
    {
      name: "switch extraction evaluation of A",
      expect: QUEUE_MANAGERS,
      ok: 200,
      call: () => ({ method: "PATCH", path: `/queues/${ids.queueA}/extraction-evaluation`, body: { status: "disabled" } }),
    },
    {
      name: "switch accounting automation of B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: () => ({ method: "PATCH", path: `/queues/${ids.queueB}/accounting-automation`, body: { status: "disabled" } }),
    },
    {
      name: "create an accounting rule in B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 201,
      call: () => ({
        method: "POST",
        path: `/queues/${ids.queueB}/accounting-automation-rules`,
        body: rule("apply_accounting_automation", { set: { contract: "C-rule" } }),
      }),
    },
    {
      name: "configure extraction evaluation of B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: () => ({ method: "PUT", path: `/queues/${ids.queueB}/extraction-evaluation`, body: { document_confidence: 99, fields: [] } }),
    },

    // Registers.
    {
      name: "upload a register to A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: () => ({ method: "POST", path: "/registers", body: register(ids.queueA) }),
    },
    {
      name: "upload a register to B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 201,
      call: () => ({ method: "POST", path: "/registers", body: register(ids.queueB) }),
    },

    // Webhooks and validation links: owners, supervisors, admins of their own queues.
    {
      name: "create a webhook on queue A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/webhooks", body: webhook(role, "queue", ids.queueA) }),
    },
    {
      name: "create a webhook on queue B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/webhooks", body: webhook(role, "queue", ids.queueB) }),
    },
    {
      name: "create a webhook on an unassigned document of A",
      // The approver does not see the document.
      expect: row("ok", "ok", "ok", 403, 404, 403),
      ok: 201,
      call: (role) => ({ method: "POST", path: "/webhooks", body: webhook(role, "document", ids.unassigned) }),
    },
    {
      name: "create a webhook on an assigned document of A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/webhooks", body: webhook(role, "document", ids.assigned) }),
    },
    {
      name: "create a webhook on the workspace (not a queue of the admin's)",
      expect: OWNER_AND_SUPERVISOR,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/webhooks", body: webhook(role, "workspace", ids.workspace) }),
    },
    {
      name: "create a webhook on the organization (not a queue of the admin's)",
      expect: OWNER_AND_SUPERVISOR,
      ok: 201,
      call: (role) => ({ method: "POST", path: "/webhooks", body: webhook(role, "organization", ids.organization) }),
    },
    {
      name: "create a validation link of A",
      expect: QUEUE_MANAGERS,
      ok: 201,
      call: () => ({ method: "POST", path: `/queues/${ids.queueA}/external-validation-links`, body: link }),
      // Edits of A's documents would call it otherwise.
      cleanup: removeLink,
    },
    {
      name: "create a validation link of B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 201,
      call: () => ({ method: "POST", path: `/queues/${ids.queueB}/external-validation-links`, body: link }),
      cleanup: async () => {
        await asOwner("DELETE", `/queues/${ids.queueB}/external-validation-links/document_validation`);
      },
    },

    // The signing key: owners and supervisors (spec "Authentication" 4 and API.md).
    {
      name: "create (rotate) the signing key",
      expect: OWNER_AND_SUPERVISOR,
      ok: [200, 201],
      call: () => ({ method: "POST", path: `/organizations/${ids.organization}/webhook-signing-key` }),
    },
    {
      name: "read the signing key",
      expect: OWNER_AND_SUPERVISOR,
      ok: 200,
      call: () => ({ method: "GET", path: `/organizations/${ids.organization}/webhook-signing-key` }),
    },

    // Managing users: assign-roles (a set_role that changes nothing) and manage-user-schema, per target role.
    ...ROLES.map(
      (target): Operation => ({
        name: `assign-roles: set_role of a member who is ${target}`,
        expect: managersOf(target),
        ok: 200,
        call: () => ({
          method: "POST",
          path: `/organizations/${ids.organization}/assign-roles`,
          body: [{ operation: "set_role", user_id: targets[target], role: target }],
        }),
      }),
    ),
    {
      name: "assign-roles: set_role of oneself",
      expect: NOBODY,
      ok: 200,
      call: (role) => ({
        method: "POST",
        path: `/organizations/${ids.organization}/assign-roles`,
        body: [{ operation: "set_role", user_id: userIds[role], role }],
      }),
    },
    ...ROLES.map(
      (target): Operation => ({
        name: `manage-user-schema of a member who is ${target}, in queue A`,
        expect: managersOf(target),
        ok: 200,
        call: () => ({
          method: "POST",
          path: `/organizations/${ids.organization}/manage-user-schema`,
          body: { user_id: targets[target], queue_id: ids.queueA, fields: [] },
        }),
      }),
    ),
    {
      name: "manage-user-schema of oneself",
      expect: NOBODY,
      ok: 200,
      call: (role) => ({
        method: "POST",
        path: `/organizations/${ids.organization}/manage-user-schema`,
        body: { user_id: userIds[role], queue_id: ids.queueA, fields: [] },
      }),
    },
    {
      name: "manage-user-schema of a member who is editor, in queue B",
      expect: OUTSIDE_QUEUE_IDS,
      ok: 200,
      call: () => ({
        method: "POST",
        path: `/organizations/${ids.organization}/manage-user-schema`,
        body: { user_id: targets.editor, queue_id: ids.queueB, fields: [] },
      }),
    },
    {
      name: "raw-memberships (is_manageable per member)",
      expect: EVERYONE,
      ok: 200,
      call: () => ({ method: "GET", path: `/organizations/${ids.organization}/raw-memberships` }),
      check: (caller, answer) => {
        const members: Array<{ user_id: string; role: Role; is_manageable: boolean }> = answer.body.data;
        const wrong: string[] = [];
        const expected = [
          ...ROLES.map((role) => ({ who: `the ${role} target`, id: targets[role], role, manageable: MANAGES[caller].includes(role) })),
          { who: "the caller itself", id: userIds[caller], role: caller, manageable: false },
        ];
        for (const { who, id, manageable } of expected) {
          const entry = members.find((member) => member.user_id === id);
          if (!entry) wrong.push(`${who} is not listed`);
          else if (entry.is_manageable !== manageable) wrong.push(`${who}: is_manageable ${entry.is_manageable}, expected ${manageable}`);
        }
        return wrong.length ? wrong.join("; ") : undefined;
      },
    },
  ];

  before(async function () {
    this.timeout(200_000);
    setUpFrom = Date.now();
    stack = await sharedStack();
    const namespace = stack.namespace;
    tokens.owner = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    ids.organization = (
      await created(asOwner("POST", "/organizations", { name: `Role matrix ${namespace}` }), "organization")
    ).body.data.id;
    ids.workspace = (
      await created(asOwner("POST", "/workspaces", { organization_id: ids.organization, name: "Matrix" }), "workspace")
    ).body.data.id;
    ids.queueA = (await created(asOwner("POST", "/queues", { workspace_id: ids.workspace, name: "Matrix A" }), "queue A")).body.data.id;
    ids.queueB = (await created(asOwner("POST", "/queues", { workspace_id: ids.workspace, name: "Matrix B" }), "queue B")).body.data.id;

    // Callers of every role but the owner (the bootstrap owner created the organization), and a target member of
    // every role; admins, editors, approvers and viewers limited to queue A.
    const queueIds = (role: Role) => (role === "owner" || role === "supervisor" ? {} : { queue_ids: [ids.queueA] });
    const email = (who: string, role: Role) => `matrix-${who}-${role}-${namespace}@example.test`;
    const callers = ROLES.filter((role) => role !== "owner");
    const invites = [
      ...callers.map((role) => ({ operation: "invite", email: email("caller", role), role, ...queueIds(role) })),
      ...ROLES.map((role) => ({ operation: "invite", email: email("target", role), role, ...queueIds(role) })),
    ];
    const invited = await created(asOwner("POST", `/organizations/${ids.organization}/assign-roles`, invites), "invitations");
    const idOf = (address: string): string => {
      const entry = invited.body.data.find((member: { email: string }) => member.email === address);
      if (!entry) throw new Error(`${address} is not among the members`);
      return entry.user_id;
    };
    for (const role of ROLES) targets[role] = idOf(email("target", role));
    const owner = invited.body.data.find((member: { email: string }) => member.email === stack.owner.email);
    userIds.owner = owner.user_id;
    await Promise.all(
      callers.map(async (role) => {
        userIds[role] = idOf(email("caller", role));
        const token = tokenIn(await stack.mail.waitForMail(email("caller", role), 1, 20_000));
        const signedIn = await created(
          stack.call("POST", "/auth/change-password", { body: { token, password: `matrix ${role} password` } }),
          role,
        );
        tokens[role] = signedIn.body.data.access_token;
      }),
    );

    // Approval automation in A assigns the approver to documents whose invoice_id is FOR-APPROVER.
    await created(asOwner("PATCH", `/queues/${ids.queueA}/automation-rules`, { status: "enabled" }), "automation switch");
    await created(
      asOwner("POST", `/queues/${ids.queueA}/approval-automation`, {
        name: "Matrix approver",
        action: "assign_approvers",
        params: { approver_ids: [userIds.approver] },
        conditions: { match: "all", rules: [{ field: "invoice_id", operator: "eq", value: "FOR-APPROVER" }] },
      }),
      "approval rule",
    );
    await created(asOwner("POST", `/organizations/${ids.organization}/webhook-signing-key`), "signing key");
    ids.exportA = (
      await created(asOwner("POST", `/queues/${ids.queueA}/exports`, { name: "Matrix JSON", format: "json", trigger: "manual" }), "export")
    ).body.data.id;
    [ids.unassigned, ids.assigned, ids.inB, ids.withFile] = await Promise.all([
      newDocument("A", "to_validate"),
      newDocument("A", "assigned"),
      newDocument("B", "to_validate"),
      (async () => {
        const pdf = await (await invoicePdf(makeInvoice(6_100, "en"), "en", "columns")).save();
        const upload = stack.call("POST", `/queues/${ids.queueA}/documents?file_name=matrix.pdf`, {
          token: tokens.owner,
          raw: pdf,
          contentType: "application/pdf",
        });
        return (await created(upload, "upload of a PDF")).body.data.id as string;
      })(),
    ]);
    ids.runA = (
      await created(asOwner("POST", `/exports/${ids.exportA}/runs`, { document_ids: [ids.unassigned] }), "export run")
    ).body.data.id;
    ids.batchA = (
      await created(
        asOwner("POST", `/queues/${ids.queueA}/payment-batches`, {
          format: "abo",
          debtor_account: "2400123456/2010",
          execution_date: "2024-05-01",
          status: "exported",
        }),
        "payment batch",
      )
    ).body.data.id;
  });

  before(() => {
    cellsFrom = Date.now();
  });
  after(() => {
    const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(1);
    console.log(
      `    role matrix: set-up (with the stack) ${seconds(setUpFrom, cellsFrom)} s, ${cells} cells ${seconds(cellsFrom, Date.now())} s`,
    );
  });

  for (const operation of OPERATIONS) {
    describe(operation.name, () => {
      const prepared = {} as Record<Role, string>;
      if (operation.prepare) {
        before(async () => {
          await Promise.all(ROLES.map(async (role) => (prepared[role] = await operation.prepare!(role))));
        });
      }
      for (const role of ROLES) {
        const expected = operation.expect[role];
        const oks = typeof operation.ok === "number" ? [operation.ok] : operation.ok;
        it(`${role} → ${expected === "ok" ? oks.join(" or ") : expected}`, async () => {
          cells += 1;
          const { method, path, body } = operation.call(role, prepared[role] ?? "");
          const answer = await stack.call(method, path, { token: tokens[role], body });
          try {
            const label = `${operation.name} as ${role} (${method} ${path}): ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 400)}`;
            if (expected === "ok") {
              expect(oks, label).to.include(answer.status);
              const problem = operation.check?.(role, answer);
              expect(problem, `${operation.name} as ${role}: ${problem}`).to.equal(undefined);
            } else {
              expect(answer.status, label).to.equal(expected);
              expect(answer.headers.get("content-type"), label).to.match(/^application\/problem\+json/);
            }
          } finally {
            if (answer.status < 300) await operation.cleanup?.();
          }
        });
      }
    });
  }
});
