import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Services } from "../src/context.ts";
import { ServicesContext } from "../src/context.ts";
import { DocumentScreen } from "../src/screens/document-screen.tsx";
import { type FakeApi, json, signedIn } from "./fake-api.ts";
import { aDocument, aQueue } from "./samples.ts";

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

const members = (role: string) => () =>
  json(200, {
    data: [{ user_id: "me", email: "me@example.test", name: null, role, queue_ids: null, status: "active", is_manageable: false }],
  });

async function open(
  role: string,
  routes: Record<string, (call: { body: unknown }) => Response> = {},
): Promise<{ api: FakeApi; services: Services }> {
  const opened = await signedIn(
    {
      "GET /documents/d-1": () => json(200, { data: aDocument() }),
      "GET /queues/q-1": () => json(200, { data: aQueue() }),
      "GET /organizations/o-1/raw-memberships": members(role),
      "GET /documents/d-1/file": () => new Response(new Blob(["%PDF-1.7"]), { headers: { "content-type": "application/pdf" } }),
      ...routes,
    },
    "me",
  );
  render(
    <ServicesContext.Provider value={opened.services}>
      <DocumentScreen documentId="d-1" />
    </ServicesContext.Provider>,
  );
  await screen.findByLabelText("Invoice number");
  return opened;
}

describe("DocumentScreen", () => {
  it("labels every input by its schema label and shows low confidence and messages at their fields", async () => {
    await open("editor");
    expect((screen.getByLabelText("Invoice number") as HTMLInputElement).value).toBe("FV-1");
    const due = screen.getByLabelText("Due date");
    expect(due.getAttribute("aria-describedby")).toContain("field-due_date-confidence");
    expect(document.getElementById("field-due_date-confidence")?.textContent).toContain("42");
    expect(document.getElementById("field-total_due-messages")?.textContent).toBe("Does not match the lines");
    expect(screen.getByText("Supplier unknown")).toBeTruthy();
    expect((screen.getByLabelText("Activity (Row 1)") as HTMLInputElement).value).toBe("Consulting");
    expect(screen.getByRole("button", { name: "Confirm" }).getAttribute("aria-keyshortcuts")).toBe("Control+Enter");
  });

  it("saves a value on Enter, once, and moves to the next field", async () => {
    const { api } = await open("editor", {
      "PATCH /documents/d-1/annotations": () => {
        const edited = aDocument();
        edited.annotations.find((annotation) => annotation.key === "invoice_id")!.value = "FV-2";
        return json(200, { data: edited });
      },
    });
    const invoice = screen.getByLabelText("Invoice number");
    invoice.focus();
    fireEvent.change(invoice, { target: { value: "FV-2" } });
    fireEvent.keyDown(invoice, { key: "Enter" });
    expect(document.activeElement).toBe(screen.getByLabelText("Due date"));
    fireEvent.blur(invoice);
    await screen.findByText("Saved");
    const patches = api.callsTo("PATCH", "/documents/d-1/annotations");
    expect(patches).toHaveLength(1);
    expect(patches[0]!.body).toEqual({ annotations: [{ key: "invoice_id", value: "FV-2" }] });
  });

  it("confirms with Ctrl+Enter, saving the pending edit of a table first", async () => {
    const { api } = await open("editor", {
      "PATCH /documents/d-1/annotations": () => json(200, { data: aDocument() }),
      "POST /documents/d-1/status": () => json(200, { data: aDocument("ready_to_export") }),
    });
    fireEvent.change(screen.getByLabelText("Activity (Row 1)"), { target: { value: "Audit" } });
    await act(async () => {
      fireEvent.keyDown(screen.getByLabelText("Invoice number"), { key: "Enter", ctrlKey: true });
    });
    await screen.findByText("Confirmed: the document is ready to export.");
    expect(api.calls.filter((call) => call.method !== "GET").map((call) => `${call.method} ${call.path}`)).toEqual([
      "POST /auth/login",
      "PATCH /documents/d-1/annotations",
      "POST /documents/d-1/status",
    ]);
    expect(api.callsTo("PATCH", "/documents/d-1/annotations")[0]!.body).toEqual({
      annotations: [{ key: "line_items", value: "", rows: [{ activity: { value: "Audit" }, total_incl_tax: { value: "1210" } }] }],
    });
    expect(api.callsTo("POST", "/documents/d-1/status")[0]!.body).toEqual({ status: "ready_to_export" });
  });

  it("shows the blocking messages of a refused confirmation at their fields and focuses the first", async () => {
    await open("editor", {
      "POST /documents/d-1/status": () =>
        json(409, {
          type: "/problems/blocked_by_error_messages",
          title: "Conflict",
          status: 409,
          detail: "blocked",
          code: "blocked_by_error_messages",
          errors: [{ path: "total_due", message: "Total differs from the ERP" }],
          messages: [{ key: "total_due", message: "Total differs from the ERP", severity: "error" }],
        }),
    });
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await screen.findByRole("alert");
    const total = screen.getByLabelText("Total due");
    expect(document.getElementById("field-total_due-messages")?.textContent).toContain("Total differs from the ERP");
    expect(total.getAttribute("aria-invalid")).toBe("true");
    await waitFor(() => expect(document.activeElement).toBe(total));
  });

  it("lets a viewer read but not edit or confirm", async () => {
    await open("viewer");
    await screen.findByText("You may read this document but not change it.");
    expect((screen.getByLabelText("Invoice number") as HTMLInputElement).disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Confirm" })).toBeNull();
  });

  it("draws a box around each value on its page, highlights the focused field's, and fills the focused field with a clicked word", async () => {
    const positioned = aDocument();
    Object.assign(positioned.annotations.find((annotation) => annotation.key === "invoice_id")!, {
      position: { page: 1, box: [0.1, 0.1, 0.3, 0.12] },
    });
    Object.assign(positioned.annotations.find((annotation) => annotation.key === "total_due")!, {
      position: { page: 1, box: [0.6, 0.8, 0.8, 0.82] },
    });
    const { api } = await open("editor", {
      "GET /documents/d-1": () => json(200, { data: positioned }),
      "GET /documents/d-1/pages": () => json(200, { data: [{ page: 1, width: 600, height: 800 }] }),
      "GET /documents/d-1/pages/1": () => new Response(new Blob(["png"]), { headers: { "content-type": "image/png" } }),
      "GET /documents/d-1/pages/1/words": () =>
        json(200, {
          data: [
            { text: "FV-9", box: [0.5, 0.5, 0.6, 0.52] },
            { text: "EUR", box: [0.7, 0.5, 0.75, 0.52] },
          ],
        }),
      "PATCH /documents/d-1/annotations": () => json(200, { data: positioned }),
    });
    const page = await waitFor(() => {
      const found = document.querySelector<HTMLElement>('[data-page="1"][data-words-ready="true"]');
      if (!found) throw new Error("page not ready");
      return found;
    });
    expect(screen.getByAltText("Page 1 of 1")).toBeTruthy();
    expect([...page.querySelectorAll("[data-box]")].map((box) => box.getAttribute("data-box")).sort()).toEqual(["invoice_id", "total_due"]);
    const invoice = screen.getByLabelText("Invoice number") as HTMLInputElement;
    act(() => invoice.focus());
    expect(page.querySelector('[data-box="invoice_id"]')?.classList.contains("active")).toBe(true);
    expect(page.querySelector('[data-box="total_due"]')?.classList.contains("active")).toBe(false);
    page.getBoundingClientRect = () => ({
      left: 0,
      top: 0,
      width: 600,
      height: 800,
      right: 600,
      bottom: 800,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    });
    const mouseDown = fireEvent.mouseDown(page, { clientX: 330, clientY: 408 });
    expect(mouseDown, "pressing on the page keeps the focus in the field").toBe(false);
    fireEvent.click(page, { clientX: 330, clientY: 408 });
    expect(invoice.value).toBe("FV-9");
    fireEvent.click(page, { clientX: 435, clientY: 408, shiftKey: true });
    expect(invoice.value).toBe("FV-9 EUR");
    expect(api.callsTo("GET", "/documents/d-1/pages/1")[0]!.query.get("width")).toMatch(/^\d+$/);
    // Saved with the place of the words clicked: the union of their boxes.
    fireEvent.blur(invoice);
    await screen.findByText("Saved");
    expect(api.callsTo("PATCH", "/documents/d-1/annotations")[0]!.body).toEqual({
      annotations: [{ key: "invoice_id", value: "FV-9 EUR", position: { page: 1, box: [0.5, 0.5, 0.75, 0.52] } }],
    });
    // A typed value is not the words clicked: it goes without a place.
    act(() => invoice.focus());
    fireEvent.click(page, { clientX: 330, clientY: 408 });
    fireEvent.change(invoice, { target: { value: "FV-10" } });
    fireEvent.blur(invoice);
    await waitFor(() => expect(api.callsTo("PATCH", "/documents/d-1/annotations")).toHaveLength(2));
    expect(api.callsTo("PATCH", "/documents/d-1/annotations")[1]!.body).toEqual({ annotations: [{ key: "invoice_id", value: "FV-10" }] });
  });

  it("says why the document waits for a person: blockers at their fields and of the document above them; a column's message at its table", async () => {
    const kept = aDocument();
    Object.assign(kept, {
      automation_blockers: [
        { key: "due_date", reason: "due_date confidence 42 is below 80" },
        { key: null, reason: "document confidence 70 is below 90" },
      ],
      messages: [...kept.messages, { key: "total_incl_tax", message: "A line does not add up", severity: "warning" }],
    });
    await open("editor", { "GET /documents/d-1": () => json(200, { data: kept }) });
    const due = screen.getByLabelText("Due date");
    expect(due.getAttribute("aria-describedby")).toContain("field-due_date-messages");
    expect(document.getElementById("field-due_date-messages")?.textContent).toBe("Waits for a person: due_date confidence 42 is below 80");
    const why = screen.getByRole("region", { name: "Why this document waits for you" });
    expect(why.textContent).toContain("document confidence 70 is below 90");
    expect(document.getElementById("field-line_items-messages")?.textContent).toBe("A line does not add up");
  });
});

describe("DocumentScreen in approval", () => {
  const inApproval = (approved: string[] = []) => {
    const routed = aDocument("in_approval");
    Object.assign(routed, {
      approvers: ["me", "other"],
      approval: {
        current_stage: 1,
        stages: [
          {
            approver_ids: ["me", "other"],
            min_approvals: 2,
            approvals: approved.map((user_id) => ({ user_id, at: "2026-12-01T11:00:00.000Z" })),
            completed: false,
          },
          { approver_ids: ["boss"], min_approvals: 1, approvals: [], completed: false },
        ],
        rejection: null,
      },
    });
    return routed;
  };

  it("shows an assigned approver the stage and Approve; approving keeps the document in approval for the others", async () => {
    const { api } = await open("approver", {
      "GET /documents/d-1": () => json(200, { data: inApproval() }),
      "POST /documents/d-1/approve": () => json(200, { data: inApproval(["me"]) }),
    });
    expect(screen.getByTestId("approval-stage").textContent).toBe("Stage 1 of 2 · 0 of 2 approvals");
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    await screen.findByText("Approved. The document stays in approval until its other approvers decide.");
    expect(api.callsTo("POST", "/documents/d-1/approve")).toHaveLength(1);
    expect(screen.getByTestId("approval-stage").textContent).toBe("Stage 1 of 2 · 1 of 2 approvals");
    expect(screen.queryByRole("button", { name: "Approve" }), "approved once per person and stage").toBeNull();
  });

  it("asks before rejecting: Escape keeps the document, Yes rejects it", async () => {
    const { api } = await open("approver", {
      "GET /documents/d-1": () => json(200, { data: inApproval() }),
      "POST /documents/d-1/reject": () => json(200, { data: aDocument("rejected") }),
    });
    fireEvent.click(screen.getByRole("button", { name: "Reject" }));
    const sure = screen.getByRole("button", { name: "Yes, reject" });
    await waitFor(() => expect(document.activeElement).toBe(sure));
    fireEvent.keyDown(sure, { key: "Escape" });
    expect(screen.queryByRole("button", { name: "Yes, reject" })).toBeNull();
    expect(api.callsTo("POST", "/documents/d-1/reject")).toHaveLength(0);
    fireEvent.click(screen.getByRole("button", { name: "Reject" }));
    fireEvent.click(screen.getByRole("button", { name: "Yes, reject" }));
    await screen.findByText("Rejected.");
    expect(api.callsTo("POST", "/documents/d-1/reject")).toHaveLength(1);
    expect(screen.getByTestId("document-status").textContent).toBe("rejected");
    expect(screen.queryByTestId("approval-stage")).toBeNull();
  });

  it("shows a viewer (even one a route names) the stage but no Approve or Reject", async () => {
    await open("viewer", { "GET /documents/d-1": () => json(200, { data: inApproval() }) });
    expect(screen.getByTestId("approval-stage").textContent).toContain("Stage 1 of 2");
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Reject" })).toBeNull();
  });
});

describe("DocumentScreen links", () => {
  it("links the possible duplicates by file name, and opens the audit trail (who, what, when) from History", async () => {
    const flagged = aDocument();
    Object.assign(flagged, { duplicates: ["d-2"] });
    const { api } = await open("owner", {
      "GET /documents/d-1": () => json(200, { data: flagged }),
      "GET /documents/d-2": () => json(200, { data: { ...aDocument(), id: "d-2", file_name: "copy.pdf" } }),
      "GET /documents/d-1/audit-log": () =>
        json(200, {
          data: [
            {
              id: "e-2",
              type: "document.status_changed",
              occurred_at: "2026-12-01T10:05:00.000Z",
              user_id: "me",
              details: { from: "to_validate", to: "ready_to_export" },
            },
            { id: "e-1", type: "document.extracted", occurred_at: "2026-12-01T10:00:00.000Z", user_id: null, details: { fields: 9 } },
          ],
          pagination: { page: 1, page_size: 50, total: 2, total_pages: 1 },
        }),
    });
    const duplicate = await screen.findByRole("link", { name: "copy.pdf" });
    expect(duplicate.getAttribute("href")).toBe("/app/documents/d-2");
    const history = screen.getByRole("button", { name: "History" });
    expect(history.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(history);
    expect(history.getAttribute("aria-expanded")).toBe("true");
    const trail = await screen.findByRole("region", { name: "History" });
    await waitFor(() => expect(trail.querySelectorAll("tbody tr")).toHaveLength(2));
    const rows = [...trail.querySelectorAll("tbody tr")].map((row) =>
      [...row.querySelectorAll("td")].slice(1).map((cell) => cell.textContent),
    );
    expect(rows).toEqual([
      ["me@example.test", "Status to validate → ready to export"],
      ["docex (automatically)", "Extracted (9 fields)"],
    ]);
    expect(api.callsTo("GET", "/documents/d-1/audit-log")[0]!.query.get("order")).toBe("desc");
    expect(screen.getByRole("button", { name: "Download the original" })).toBeTruthy();
  });

  it("says who may read the history when the audit log refuses the caller", async () => {
    await open("editor", {
      "GET /documents/d-1/audit-log": () => json(403, { status: 403, code: "forbidden", title: "Forbidden", detail: "", errors: [] }),
    });
    fireEvent.click(screen.getByRole("button", { name: "History" }));
    await screen.findByText("The history of a document is shown to owners and supervisors.");
  });
});
