import type { ServiceChange } from "./document-changes.js";
import type { Annotation, StoredDocument } from "./records.js";

/** A user's edit, saved and committed, as document_validation needs it. */
export interface SavedEdit {
  document: StoredDocument;
  previousAnnotations: Annotation[];
  userId: string;
  requestId: string;
}

/**
 * The seam for `document_validation` (issue 7). After a user's PATCH of annotations is committed, the
 * validator may return the changes the validation answer asks for (replacement values, cells, messages with
 * replace_messages, options); they are applied with the saved version as expected_version, so they never
 * overwrite a newer edit. It must answer within the request's budget and must not throw for an unavailable
 * receiver (issue 7 turns that into a warning message instead).
 */
export interface DocumentValidator {
  validateEdit(edit: SavedEdit): Promise<Omit<ServiceChange, "documentId"> | undefined>;
}

/** Until issue 7: edits are saved without external validation. */
export const withoutValidation: DocumentValidator = {
  validateEdit: async () => undefined,
};
