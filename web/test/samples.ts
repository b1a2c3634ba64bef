import type { DocumentDto, Queue } from "../src/api/types.ts";

export function aQueue(): Queue {
  return {
    id: "q-1",
    humanized_id: "invoices",
    name: "Invoices",
    workspace_id: "w-1",
    organization_id: "o-1",
    extraction_evaluation: { status: "disabled", document_confidence: null, fields: [] },
    annotation_schema: [
      { key: "invoice_id", label: "Invoice number", type: "string" },
      { key: "due_date", label: "Due date", type: "date" },
      { key: "total_due", label: "Total due", type: "number" },
      {
        key: "line_items",
        label: "Line items",
        type: "table",
        columns: [
          { key: "activity", label: "Activity", type: "string" },
          { key: "total_incl_tax", label: "Total incl. tax", type: "number" },
        ],
      },
    ],
  } as unknown as Queue;
}

export function aDocument(status = "to_validate"): DocumentDto {
  return {
    id: "d-1",
    queue_id: "q-1",
    workspace_id: "w-1",
    organization_id: "o-1",
    file_name: "invoice.pdf",
    status,
    annotations: [
      { key: "total_due", value: "1210", confidence: 95 },
      { key: "due_date", value: "2026-01-31", confidence: 42 },
      { key: "invoice_id", value: "FV-1", confidence: 97 },
      { key: "line_items", value: "", rows: [{ activity: { value: "Consulting" }, total_incl_tax: { value: "1210" } }] },
    ],
    messages: [
      { key: "total_due", message: "Does not match the lines", severity: "warning" },
      { key: null, message: "Supplier unknown", severity: "info" },
    ],
    options: {},
    created_at: "2026-12-01T10:00:00.000Z",
    updated_at: "2026-12-01T10:00:00.000Z",
  } as unknown as DocumentDto;
}
