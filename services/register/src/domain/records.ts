/** The records of this context as the domain and the store exchange them: plain objects. */

export const UPLOAD_METHODS = ["replace", "append", "upsert"] as const;
export type UploadMethod = (typeof UPLOAD_METHODS)[number];

export interface Register {
  id: string;
  organizationId: string;
  queueId: string;
  name: string;
  itemCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An item as uploaded; absent fields are null, absent data is `{}`. */
export interface ItemInput {
  value: string;
  label: string | null;
  name: string | null;
  /** The item's company register number (the API's item field `register_id`). */
  registerNumber: string | null;
  taxId: string | null;
  data: Record<string, unknown>;
}

export interface RegisterItem extends ItemInput {
  id: string;
}

/** One element of the array of POST /registers. */
export interface UploadEntry {
  /** UUID or humanized id, as the caller sent it. */
  queueRef: string;
  method: UploadMethod;
  name: string;
  items: ItemInput[];
}

/** A queue as the document service resolves it. */
export interface QueueRef {
  queueId: string;
  organizationId: string;
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface ItemPage {
  items: RegisterItem[];
  page: number;
  pageSize: number;
  total: number;
}
