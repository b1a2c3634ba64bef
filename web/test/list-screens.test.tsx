import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ServicesContext } from "../src/context.ts";
import { QueueScreen } from "../src/screens/queue-screen.tsx";
import { QueuesScreen } from "../src/screens/queues-screen.tsx";
import { json, signedIn } from "./fake-api.ts";
import { aDocument, aQueue } from "./samples.ts";

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

const page = (data: unknown[]) => json(200, { data, pagination: { page: 1, page_size: 100, total: data.length, total_pages: 1 } });

const hierarchy = {
  "GET /organizations": () => page([{ id: "o-1", humanized_id: "acme", name: "Acme", created_at: "2026-01-01T00:00:00Z" }]),
  "GET /organizations/o-1/workspaces": () => page([{ id: "w-1", humanized_id: "ap", name: "Payables", organization_id: "o-1" }]),
  "GET /workspaces/w-1/queues": () =>
    page([
      { id: "q-1", humanized_id: "invoices", name: "Invoices" },
      { id: "q-2", humanized_id: "credit", name: "Credit notes" },
    ]),
};

describe("QueuesScreen", () => {
  it("shows organizations, workspaces and queues, with counts where the API answers and without them where it does not", async () => {
    const { services } = await signedIn(
      { ...hierarchy, "GET /queues/q-1/document-counts": () => json(200, { data: { to_validate: 3, exported: 0, deleted: 2 } }) },
      "me",
    );
    render(
      <ServicesContext.Provider value={services}>
        <QueuesScreen />
      </ServicesContext.Provider>,
    );
    expect(await screen.findByRole("heading", { name: "Acme" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Payables" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Invoices" }).getAttribute("href")).toBe("/app/queues/q-1");
    expect(await screen.findByText("to validate: 3")).toBeTruthy();
    // q-2's counts are a 404 (a stack without the route): the queue is listed all the same, and zero or deleted is not shown.
    expect(screen.getByRole("link", { name: "Credit notes" })).toBeTruthy();
    expect(screen.queryByText(/deleted/)).toBeNull();
    expect(screen.queryByText(/exported/)).toBeNull();
  });
});

describe("QueueScreen", () => {
  it("lists a page of documents with the status filter sent, and uploads several files at once as multipart", async () => {
    let uploads = 0;
    const { api, services } = await signedIn(
      {
        "GET /queues/q-1": () => json(200, { data: aQueue() }),
        "GET /queues/q-1/documents": () =>
          json(200, { data: [aDocument()], pagination: { page: 2, page_size: 20, total: 30, total_pages: 2 } }),
        "POST /queues/q-1/documents": () => {
          uploads++;
          return json(201, { data: aDocument("received") });
        },
      },
      "me",
    );
    render(
      <ServicesContext.Provider value={services}>
        <QueueScreen place={{ screen: "queue", queueId: "q-1", status: "to_validate", page: 2 }} />
      </ServicesContext.Provider>,
    );
    expect(await screen.findByRole("link", { name: "invoice.pdf" })).toBeTruthy();
    expect(screen.getByText("Page 2 of 2")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Next page" }) as HTMLButtonElement).disabled).toBe(true);
    const listed = api.calls.find((call) => call.path === "/queues/q-1/documents" && call.method === "GET");
    expect(Object.fromEntries(listed!.query)).toEqual({ status: "to_validate", page: "2", page_size: "20", sort: "-created_at" });
    const picker = screen.getByLabelText("Upload files", { selector: "input" }) as HTMLInputElement;
    const files = [
      new File(["%PDF-1.7 a"], "a.pdf", { type: "application/pdf" }),
      new File(["%PDF-1.7 b"], "b.pdf", { type: "application/pdf" }),
    ];
    fireEvent.change(picker, { target: { files } });
    await screen.findByText("a.pdf uploaded.");
    await screen.findByText("b.pdf uploaded.");
    expect(uploads).toBe(2);
    const sent = api.callsTo("POST", "/queues/q-1/documents");
    expect(sent.every((call) => call.headers.get("content-type")?.startsWith("multipart/form-data"))).toBe(true);
    await waitFor(() => expect(api.callsTo("GET", "/queues/q-1/documents").length).toBeGreaterThan(1));

    const dropped = new File(["%PDF-1.7 c"], "c.pdf", { type: "application/pdf" });
    fireEvent.drop(screen.getByRole("region", { name: "Upload files" }), { dataTransfer: { files: [dropped] } });
    await screen.findByText("c.pdf uploaded.");
    expect(uploads).toBe(3);
  });
});

describe("QueueScreen filters", () => {
  it("sends the text, date range, assigned-to-me and sort filters the person sets", async () => {
    const { api, services } = await signedIn(
      {
        "GET /queues/q-1": () => json(200, { data: aQueue() }),
        "GET /queues/q-1/documents": () =>
          json(200, { data: [aDocument()], pagination: { page: 1, page_size: 20, total: 1, total_pages: 1 } }),
      },
      "me",
    );
    render(
      <ServicesContext.Provider value={services}>
        <QueueScreen place={{ screen: "queue", queueId: "q-1", page: 1 }} />
      </ServicesContext.Provider>,
    );
    expect(await screen.findByRole("link", { name: "invoice.pdf" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Search"), { target: { value: "acme" } });
    fireEvent.change(screen.getByLabelText("Received from"), { target: { value: "2026-11-01" } });
    fireEvent.change(screen.getByLabelText("to"), { target: { value: "2026-11-30" } });
    fireEvent.click(screen.getByLabelText("Assigned to me"));
    fireEvent.change(screen.getByLabelText("Sort by"), { target: { value: "-total_due" } });
    await waitFor(() => {
      const last = api.callsTo("GET", "/queues/q-1/documents").at(-1);
      expect(Object.fromEntries(last!.query)).toEqual({
        page: "1",
        page_size: "20",
        sort: "-total_due",
        q: "acme",
        created_from: "2026-11-01",
        created_to: "2026-11-30",
        assigned_to_me: "true",
      });
    });
  });
});

describe("QueueScreen across queues", () => {
  it("lists every readable document through GET /documents, each with its queue's name, without an upload area", async () => {
    const { api, services } = await signedIn(
      {
        "GET /documents": () => json(200, { data: [aDocument()], pagination: { page: 1, page_size: 20, total: 1, total_pages: 1 } }),
        [`GET /queues/${aDocument().queue_id}`]: () => json(200, { data: { ...aQueue(), name: "Invoices of Acme" } }),
      },
      "me",
    );
    render(
      <ServicesContext.Provider value={services}>
        <QueueScreen place={{ screen: "documents", page: 1 }} />
      </ServicesContext.Provider>,
    );
    expect(await screen.findByRole("heading", { name: "All documents" })).toBeTruthy();
    expect(await screen.findByRole("link", { name: "invoice.pdf" })).toBeTruthy();
    expect(await screen.findByRole("link", { name: "Invoices of Acme" })).toBeTruthy();
    expect(screen.queryByLabelText("Upload files", { selector: "input" })).toBeNull();
    expect(api.callsTo("GET", "/documents").length).toBeGreaterThan(0);
  });
});
