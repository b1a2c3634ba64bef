import type { Annotation } from "@docex/annotations";

export type { Annotation };

export const VISIBILITIES = ["visible", "hidden"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** The user behind a request, as the domain needs them. */
export interface Actor {
  userId: string;
  requestId: string;
}

export type { SupplierIdentity, SupplierIds } from "@docex/annotations";

/** What a field holds: its text and, for a multi-value field, the texts of its further values. */
export interface FieldContent {
  value: string;
  values: string[];
}

/** A field the memory would fill for a supplier. */
export interface RememberedField {
  key: string;
  content: FieldContent;
  /** Set by relearn: applied even over a value the AI extracted. Learned ones only fill empty fields. */
  pinned: boolean;
  /** The probability, in %, that it is the next document's value (see rememberedConfidence). */
  confidence: number;
}

export interface SupplierMemory {
  fields: RememberedField[];
  lineItemsVisibility: Visibility | null;
  taxDetailVisibility: Visibility | null;
}

/** A document as learning needs it, read from the document service. */
export interface DocumentView {
  id: string;
  queueId: string;
  organizationId: string;
  status: string;
  approvers: string[];
  annotations: Annotation[];
  version: number;
}
