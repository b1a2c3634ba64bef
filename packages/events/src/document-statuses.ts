/*
 * Every status of API.md, in the order a document goes through them. A module of its own, with no imports, so that the
 * web app takes the list from here (`@docex/events/document-statuses`) without bundling the event schemas.
 */
export const DOCUMENT_STATUSES = [
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
] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
