// @vitest-environment node
import { describe, expect, it } from "vitest";
import type { DocumentDto, Queue } from "../src/api/types.ts";
import { blockingMessages, documentMessages, fieldViews, filledPosition, tableEdit, valueEdit } from "../src/fields.ts";
import { localeFrom, translator } from "../src/i18n.ts";
import { hrefOf, placeOf } from "../src/router.ts";
import { aDocument, aQueue } from "./samples.ts";

describe("fieldViews", () => {
  const queue: Queue = aQueue();
  const document: DocumentDto = aDocument();

  it("lists the fields in the schema's order, whatever the order of the annotations", () => {
    expect(fieldViews(queue, document).map((view) => view.definition.key)).toEqual(["invoice_id", "due_date", "total_due", "line_items"]);
  });

  it("flags a low confidence (below 80 %, or the queue's own minimum for the field)", () => {
    const views = fieldViews(queue, document);
    expect(views.find((view) => view.definition.key === "invoice_id")?.low).toBe(false);
    expect(views.find((view) => view.definition.key === "due_date")?.low).toBe(true);
    const strict = {
      ...queue,
      extraction_evaluation: { ...queue.extraction_evaluation, fields: [{ key: "invoice_id", min_confidence: 99, required: false }] },
    };
    expect(fieldViews(strict, document).find((view) => view.definition.key === "invoice_id")?.low).toBe(true);
  });

  it("puts each message at its field, and those of no field above them", () => {
    const views = fieldViews(queue, document);
    expect(views.find((view) => view.definition.key === "total_due")?.messages.map((m) => m.message)).toEqual(["Does not match the lines"]);
    expect(documentMessages(queue, document.messages).map((m) => m.message)).toEqual(["Supplier unknown"]);
  });

  it("reads the table's rows by column", () => {
    expect(fieldViews(queue, document).find((view) => view.definition.key === "line_items")?.rows).toEqual([
      { activity: "Consulting", total_incl_tax: "1210" },
    ]);
  });
});

describe("edits", () => {
  it("keep the other values of a multi-value field and send only text", () => {
    const document = aDocument();
    document.annotations.push({ key: "bank_account", value: "123/0100", values: [{ value: "456/0300", numericValue: 1 } as never] });
    expect(valueEdit(document, "bank_account", "999/0800")).toEqual({
      key: "bank_account",
      value: "999/0800",
      values: [{ value: "456/0300" }],
    });
    expect(valueEdit(document, "invoice_id", "X")).toEqual({ key: "invoice_id", value: "X" });
  });

  it("send the place of the words clicked to fill a value: one word's box, the union of words added with Shift on its page", () => {
    const first = filledPosition(undefined, 1, [0.5, 0.1, 0.6, 0.12], false);
    expect(first).toEqual({ page: 1, box: [0.5, 0.1, 0.6, 0.12] });
    const two = filledPosition(first, 1, [0.62, 0.105, 0.7, 0.125], true);
    expect(two).toEqual({ page: 1, box: [0.5, 0.1, 0.7, 0.125] });
    // Clicked without Shift, or on another page: the new word alone; a box past the page is kept on it.
    expect(filledPosition(two, 1, [0.2, 0.3, 0.25, 0.32], false)).toEqual({ page: 1, box: [0.2, 0.3, 0.25, 0.32] });
    expect(filledPosition(two, 2, [0.2, 0.3, 1.02, 0.32], true)).toEqual({ page: 2, box: [0.2, 0.3, 1, 0.32] });
    expect(valueEdit(aDocument(), "invoice_id", "FV-9", two)).toEqual({ key: "invoice_id", value: "FV-9", position: two });
  });

  it("send a table's rows as cells of text, leaving out empty rows", () => {
    expect(
      tableEdit("line_items", [
        { activity: "A", total_incl_tax: "1" },
        { activity: " ", total_incl_tax: "" },
      ]),
    ).toEqual({ key: "line_items", value: "", rows: [{ activity: { value: "A" }, total_incl_tax: { value: "1" } }] });
  });

  it("read the blocking messages of a 409, or its errors by path", () => {
    const messages = [{ key: "total_due", message: "Wrong", severity: "error" as const }];
    expect(blockingMessages({ status: 409, messages } as never)).toEqual(messages);
    expect(blockingMessages({ status: 409, errors: [{ path: "iban", message: "Bad" }] } as never)).toEqual([
      { key: "iban", message: "Bad", severity: "error" },
    ]);
  });
});

describe("locale and places", () => {
  it("takes Czech from cs, cs-CZ or cs_CZ, English otherwise", () => {
    expect(localeFrom(["de-DE", "cs-CZ"])).toBe("cs");
    expect(localeFrom(["cs_CZ"])).toBe("cs");
    expect(localeFrom(["en-GB", "cs"])).toBe("en");
    expect(localeFrom(["fr"])).toBe("en");
    expect(translator("cs").status("ready_to_export")).toBe("připraven k exportu");
    expect(translator("en").t("page", { page: 2, pages: 5 })).toBe("Page 2 of 5");
  });

  it("map paths under /app/ to screens and back", () => {
    expect(placeOf("/app/")).toEqual({ screen: "queues" });
    expect(placeOf("/app/queues/acme", "?status=to_validate&page=3")).toEqual({
      screen: "queue",
      queueId: "acme",
      status: "to_validate",
      page: 3,
    });
    expect(placeOf("/app/documents/d-1")).toEqual({ screen: "document", documentId: "d-1" });
    expect(placeOf("/app/elsewhere/x/y")).toEqual({ screen: "not_found" });
    expect(placeOf("/app/auth/magic-login", "?token=a%2Bb")).toEqual({ screen: "magic_login", token: "a+b" });
    expect(placeOf("/app/auth/change-password", "?token=t1")).toEqual({ screen: "set_password", token: "t1" });
    expect(placeOf("/app/auth/accept-invitation", "?token=t2")).toEqual({ screen: "accept_invitation", token: "t2" });
    expect(hrefOf({ screen: "queue", queueId: "acme", page: 2, status: "postponed" })).toBe("/app/queues/acme?status=postponed&page=2");
  });
});
