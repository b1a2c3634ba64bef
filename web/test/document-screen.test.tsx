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
});
