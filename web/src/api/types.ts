import type { components, operations } from "../generated/api.ts";

type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type DataOf<T> = Json<T> extends { data: infer Data } ? Data : never;

export type Problem = components["schemas"]["Problem"] & { messages?: Message[] };
/** `T` with every four-number tuple widened to `number[]`: operations type `position.box` one way or the other. */
type Loose<T> = T extends readonly [number, number, number, number]
  ? number[]
  : T extends readonly (infer Item)[]
    ? Loose<Item>[]
    : T extends object
      ? { [Key in keyof T]: Loose<T[Key]> }
      : T;

/** A document as any operation answers it (one state holds the answers of get, patch, status and lists). */
export type DocumentDto = Loose<DataOf<operations["getDocument"]["responses"][200]>>;
export type Annotation = DocumentDto["annotations"][number];
export type Message = DocumentDto["messages"][number];
export type Queue = DataOf<operations["getQueue"]["responses"][200]>;
export type FieldDefinition = Queue["annotation_schema"][number];
export type Organization = DataOf<operations["listOrganizations"]["responses"][200]>[number];
export type Workspace = DataOf<operations["listWorkspaces"]["responses"][200]>[number];
export type Pagination = Json<operations["listQueueDocuments"]["responses"][200]>["pagination"];
export type TokenResponse = DataOf<operations["login"]["responses"][200]>;

/** Every status of API.md, in the order a document goes through them: the services' own list. */
export { DOCUMENT_STATUSES, type DocumentStatus } from "@docex/events/document-statuses";
