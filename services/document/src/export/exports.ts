import { randomUUID } from "node:crypto";
import { DOCUMENT_STATUSES, type DocexEvent } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Sql, Tx } from "@docex/kit/db";
import { ConflictError, NotFoundError, ValidationError } from "@docex/kit/errors";
import { type AccessControl, type Actor, forbidden, readableQueue } from "../domain/access.js";
import { configurationChanged } from "../domain/document-events.js";
import type { ChangeMeta, DocumentWriter } from "../domain/document-writer.js";
import type { Documents } from "../domain/documents.js";
import type { DocumentView } from "../domain/duplicates.js";
import { isUuid } from "../domain/humanized-id.js";
import type { DocumentMessage, DocumentStatus, StoredDocument } from "../domain/records.js";
import { moveConflict, refuseMove } from "../domain/status-machine.js";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { ExportConfig, ExportRun, ExportStore, ExportTrigger } from "./export-store.js";
import { type ExportFile, type ExportFormat, FORMAT_OPTIONS, runFile } from "./formats/index.js";
import { invoiceOf, MissingInvoiceData } from "./invoice.js";

export interface ExportsDependencies {
  sql: Sql;
  store: ExportStore;
  documents: DocumentStore;
  hierarchy: HierarchyStore;
  writer: DocumentWriter;
  access: AccessControl;
  /** The document as the caller may see it, for answers. */
  views: Pick<Documents, "get">;
  events: OutboxEvents;
}

/** Which documents a manual run exports: named ones, or those of the queue a filter matches. */
export type RunSelection =
  | { documentIds: string[] }
  | { filter: { statuses?: DocumentStatus[] | undefined; createdFrom?: Date | undefined; createdBefore?: Date | undefined } };

/** The statuses a run's filter may name: any but `deleted`. */
export const RUN_FILTER_STATUSES = DOCUMENT_STATUSES.filter((status) => status !== "deleted");

export interface ExportInput {
  name: string;
  format: ExportFormat;
  trigger: ExportTrigger;
  options?: Record<string, unknown> | undefined;
}

export interface ExportResultInput {
  status: "exported" | "export_failed";
  externalId?: string | undefined;
  message?: string | undefined;
}

/** The most documents one manual run takes. */
export const MAX_RUN_DOCUMENTS = 100;

/** What a failed export leaves on the document when nobody said why. */
const UNKNOWN_FAILURE = "The export failed.";

/** Documents a manual run takes and moves through exporting; others (exported already, say) are exported as they are. */
const MOVED_BY_RUNS: ReadonlySet<DocumentStatus> = new Set(["ready_to_export", "export_failed"]);

/** The moves that take a document from `from` to an export outcome, through `exporting` where the table needs it. */
function pathToOutcome(from: DocumentStatus, outcome: "exported" | "export_failed"): DocumentStatus[] | undefined {
  if (from === outcome) return [];
  if (from === "exporting") return [outcome];
  if (from === "ready_to_export" || from === "export_failed") return ["exporting", outcome];
  return undefined;
}

/** The document's messages without the last export's failure, and with this one's when it failed. */
function exportMessages(messages: readonly DocumentMessage[], failure?: string): DocumentMessage[] {
  const kept = messages.filter((message) => message.source !== "export");
  return failure ? [...kept, { key: null, message: failure, severity: "error", source: "export" }] : kept;
}

const exportNotFound = (id: string) => () => new NotFoundError(`Export ${id} does not exist.`, "export_not_found");
const runNotFound = (id: string) => () => new NotFoundError(`Export run ${id} does not exist.`, "export_run_not_found");
const documentNotFound = (id: string) => () => new NotFoundError(`Document ${id} does not exist.`, "document_not_found");

/**
 * Exports of a queue's documents (issue 38): configurations (owners, supervisors, the queue's admins: `queue.manage`),
 * manual runs and their files, the on_ready export of a document reaching `ready_to_export`, and the outcome an
 * integrator records. Every status move goes through the DocumentWriter: an audit entry and `document.status_changed`.
 */
export class Exports {
  constructor(private readonly deps: ExportsDependencies) {}

  private managedQueue(actor: Actor, ref: string) {
    return readableQueue({ queues: this.deps.hierarchy, access: this.deps.access }, actor, ref);
  }

  /** An export the caller may see (else 404) and, with `manage`, configure (else 403). */
  private async visibleExport(actor: Actor, id: string, permission: "queue.manage" | "document.edit" | "document.read") {
    const notFound = exportNotFound(id);
    const config = await this.deps.access.readableById(actor, id, (uuid) => this.deps.store.find(uuid), notFound);
    const scope = { organizationId: config.organizationId, queueId: config.queueId };
    if (permission !== "document.read") await this.deps.access.require(actor, permission, scope, notFound);
    return config;
  }

  async create(actor: Actor, queueRef: string, input: ExportInput): Promise<ExportConfig> {
    const { queue, scope, notFound } = await this.managedQueue(actor, queueRef);
    await this.deps.access.require(actor, "queue.manage", scope, notFound);
    const options = checkedOptions(input.format, input.options);
    return this.deps.sql.transaction(async (tx) => {
      const config = await this.deps.store.insert(tx, {
        id: randomUUID(),
        queueId: queue.id,
        organizationId: queue.organizationId,
        name: input.name,
        format: input.format,
        trigger: input.trigger,
        options,
      });
      await this.deps.events.add(tx, exportChanged(actor, config, null, config));
      return config;
    });
  }

  async list(actor: Actor, queueRef: string): Promise<ExportConfig[]> {
    const { queue } = await this.managedQueue(actor, queueRef);
    return this.deps.store.listOfQueue(queue.id);
  }

  /** Changes what is sent; a new format without options takes that format's defaults. */
  async update(actor: Actor, id: string, input: Partial<ExportInput>): Promise<ExportConfig> {
    const config = await this.visibleExport(actor, id, "queue.manage");
    const format = input.format ?? config.format;
    const options = input.options ?? (input.format && input.format !== config.format ? {} : config.options);
    const checked = checkedOptions(format, options);
    return this.deps.sql.transaction(async (tx) => {
      const previous = await this.deps.store.find(config.id, tx, true);
      if (!previous) throw exportNotFound(id)();
      const updated = await this.deps.store.update(tx, {
        ...previous,
        name: input.name ?? previous.name,
        format,
        trigger: input.trigger ?? previous.trigger,
        options: checked,
      });
      if (!updated) throw exportNotFound(id)();
      if (JSON.stringify(stateOf(previous)) !== JSON.stringify(stateOf(updated))) {
        await this.deps.events.add(tx, exportChanged(actor, updated, previous, updated));
      }
      return updated;
    });
  }

  /** Its runs and their files stay readable. */
  async delete(actor: Actor, id: string): Promise<void> {
    const config = await this.visibleExport(actor, id, "queue.manage");
    await this.deps.sql.transaction(async (tx) => {
      const deleted = await this.deps.store.delete(tx, config.id);
      if (deleted) await this.deps.events.add(tx, exportChanged(actor, deleted, deleted, null));
    });
  }

  /**
   * A manual run: who may edit the queue's documents exports those named (documents of the export's queue that are
   * not deleted, else 400 naming them). The file is produced before anything is written; then, in one transaction, the
   * run is stored with it and each document in `ready_to_export` or `export_failed` moves through `exporting` to
   * `exported`, all listing the run in `exports`. A document that lacks what the format needs fails the whole run
   * (status `failed`, its reason in `error`), and such documents move to `export_failed` with the reason.
   */
  async run(actor: Actor, exportId: string, selection: RunSelection): Promise<ExportRun> {
    const config = await this.visibleExport(actor, exportId, "document.edit");
    const documentIds = "documentIds" in selection ? selection.documentIds : await this.matching(config, selection.filter);
    const ids = [...new Set(documentIds.map((id) => id.toLowerCase()))];
    const found = await Promise.all(ids.map((id) => this.deps.documents.find(id)));
    const errors = ids.flatMap((id, index) => {
      const document = found[index];
      const inQueue = document && document.queueId === config.queueId && document.status !== "deleted";
      return inQueue
        ? []
        : [
            {
              path: `document_ids.${documentIds.findIndex((sent) => sent.toLowerCase() === id)}`,
              message: `not a document of the export's queue`,
            },
          ];
    });
    if (errors.length) throw new ValidationError("Some documents cannot be exported by this export.", errors, "invalid_documents");
    const cause: ChangeMeta = { source: "user", userId: actor.userId, requestId: actor.requestId };
    return this.deps.sql.transaction(async (tx) => {
      const documents: StoredDocument[] = [];
      for (const id of ids) documents.push(await this.locked(tx, id));
      const runId = randomUUID();
      const produced = produce(config, documents, `export-run-${runId}`);
      const run = await this.deps.store.insertRun(tx, startedRun(config, runId, ids));
      if (!run) throw new Error(`export run ${runId} was not inserted`);
      for (const document of documents) {
        const failure = "file" in produced ? undefined : produced.failures.get(document.id);
        const outcome = "file" in produced ? "exported" : failure ? "export_failed" : undefined;
        if (outcome && MOVED_BY_RUNS.has(document.status)) await this.moveToOutcome(tx, document, outcome, failure, cause, true);
        if (outcome) await this.recordExport(tx, document.id, config, runId, outcome);
      }
      if ("file" in produced) await this.deps.store.finishRun(tx, runId, { status: "done", file: produced.file });
      else await this.deps.store.finishRun(tx, runId, { status: "failed", error: produced.error });
      const finished = await this.deps.store.findRun(runId, tx);
      if (!finished) throw new Error(`export run ${runId} is gone`);
      return finished;
    });
  }

  /**
   * The documents of the export's queue a run's filter takes: in its statuses (`ready_to_export` by default), uploaded
   * within its dates, the oldest MAX_RUN_DOCUMENTS. 400 `no_documents` when none matches: a run of nothing has no file.
   */
  private async matching(config: ExportConfig, filter: Extract<RunSelection, { filter: unknown }>["filter"]): Promise<string[]> {
    const { items } = await this.deps.documents.list({
      scopes: [{ organizationId: config.organizationId, queueIds: [config.queueId] }],
      queueId: config.queueId,
      statuses: filter.statuses?.length ? filter.statuses : ["ready_to_export"],
      ...(filter.createdFrom ? { createdFrom: filter.createdFrom } : {}),
      ...(filter.createdBefore ? { createdBefore: filter.createdBefore } : {}),
      sort: "created_at",
      offset: 0,
      limit: MAX_RUN_DOCUMENTS,
    });
    if (items.length === 0) {
      throw new ValidationError(
        "No document of the export's queue matches the filter.",
        [{ path: "filter", message: "matches no document of the queue" }],
        "no_documents",
      );
    }
    return items.map((document) => document.id);
  }

  async getRun(actor: Actor, runId: string): Promise<ExportRun> {
    return this.deps.access.readableById(actor, runId, (uuid) => this.deps.store.findRun(uuid), runNotFound(runId));
  }

  /** The run's file: 404 `export_file_not_found` while it runs or when it failed, `export_file_purged` once a document in it was purged. */
  async runFile(actor: Actor, runId: string): Promise<ExportFile> {
    const run = await this.getRun(actor, runId);
    const file = await this.deps.store.runFile(run.id);
    if (run.filePurgedAt) {
      throw new NotFoundError(
        `Export run ${runId}'s file was removed on ${run.filePurgedAt.toISOString()}: a document in it reached its queue's lifetime and was purged.`,
        "export_file_purged",
      );
    }
    if (!file) throw new NotFoundError(`Export run ${runId} has no file (it is ${run.status}).`, "export_file_not_found");
    return file;
  }

  /**
   * `POST /documents/{id}/export-result`: an integrator that exported the document itself records the outcome. Who may
   * change the document's status may (`document.edit`). The document moves to the outcome through `exporting` where the
   * status table needs it (from `ready_to_export` or `export_failed`); an outcome it already has only records the
   * external id and the message again. A failure leaves its message (or "The export failed.") as an `error` message,
   * which the next export replaces. Anything else (a document in validation, say) is 409 naming the allowed statuses.
   */
  async recordResult(actor: Actor, documentId: string, input: ExportResultInput): Promise<DocumentView> {
    const notFound = documentNotFound(documentId);
    const document = isUuid(documentId) ? await this.deps.documents.find(documentId.toLowerCase()) : undefined;
    if (!document) throw notFound();
    const grant = await this.deps.access.requireDocumentReadable(actor, document, notFound);
    const scope = { organizationId: document.organizationId, queueId: document.queueId };
    if (!(await this.deps.access.allows(actor, "document.edit", scope))) throw forbidden("document.edit", grant.role);
    const cause: ChangeMeta = { source: "user", userId: actor.userId, requestId: actor.requestId };
    await this.deps.sql.transaction(async (tx) => {
      const current = await this.locked(tx, document.id);
      const failure = input.status === "export_failed" ? (input.message ?? UNKNOWN_FAILURE) : undefined;
      await this.moveToOutcome(tx, current, input.status, failure, cause);
      await this.deps.store.recordOnDocument(
        tx,
        current.id,
        { export_id: null, run_id: null, format: null, status: input.status, at: new Date().toISOString() },
        input.externalId,
      );
    });
    return this.deps.views.get(actor, document.id);
  }

  /**
   * The on_ready export of a document that reached `ready_to_export` (event `eventId`), in one transaction: the document
   * moves to `exporting` (its own audit entry and status event), a run per on_ready export of its queue produces its
   * file, and the document moves on to `exported`, or to `export_failed` with the reason as an `error` message when a
   * file could not be produced. The event is acknowledged after the commit: a process that stops before it gets the
   * event again and starts over (nothing was written); a redelivery after the commit finds the document moved on.
   */
  async exportOnReady(eventId: string, documentId: string): Promise<void> {
    const document = await this.deps.documents.find(documentId);
    if (!document) return;
    const configs = await this.deps.store.listOfQueue(document.queueId, "on_ready");
    if (configs.length === 0) return;
    const cause: ChangeMeta = { source: "export", userId: null };
    await this.deps.sql.transaction(async (tx) => {
      let current = await this.locked(tx, document.id);
      if (current.status !== "ready_to_export" || refuseMove(current.status, "exporting", current.messages)) return;
      current = await this.moveTo(tx, current, "exporting", exportMessages(current.messages), cause);
      const failures: string[] = [];
      for (const config of configs) {
        const runId = randomUUID();
        const run = await this.deps.store.insertRun(tx, startedRun(config, runId, [current.id]), eventId);
        if (!run) continue;
        const produced = produce(config, [current], `export-${current.id}`);
        if ("file" in produced) {
          await this.deps.store.finishRun(tx, runId, { status: "done", file: produced.file });
          await this.recordExport(tx, current.id, config, runId, "exported");
        } else {
          failures.push(`${config.name}: ${produced.error}`);
          await this.deps.store.finishRun(tx, runId, { status: "failed", error: produced.error });
          await this.recordExport(tx, current.id, config, runId, "export_failed");
        }
      }
      const failure = failures.length ? failures.join(" ") : undefined;
      await this.moveTo(tx, current, failure ? "export_failed" : "exported", exportMessages(current.messages, failure), cause);
    });
  }

  private async locked(tx: Tx, id: string): Promise<StoredDocument> {
    const document = await this.deps.documents.find(id, tx, true);
    if (!document) throw documentNotFound(id)();
    return document;
  }

  private async moveTo(tx: Tx, current: StoredDocument, target: DocumentStatus, messages: DocumentMessage[], meta: ChangeMeta) {
    const refusal = refuseMove(current.status, target, messages);
    if (refusal) throw moveConflict(refusal);
    return this.deps.writer.write(tx, current, { ...current, messages, status: target }, meta);
  }

  /** Moves `document` to `outcome` through the table's steps; `lenient` leaves a document that cannot get there as it is. */
  private async moveToOutcome(
    tx: Tx,
    document: StoredDocument,
    outcome: "exported" | "export_failed",
    failure: string | undefined,
    meta: ChangeMeta,
    lenient = false,
  ): Promise<void> {
    const path = pathToOutcome(document.status, outcome);
    if (!path) {
      if (lenient) return;
      const allowed: DocumentStatus[] = ["ready_to_export", "exporting", "export_failed"];
      throw new ConflictError(
        `An export result is recorded for a document in ${allowed.join(", ")} (or already ${outcome}); this one is ${document.status}.`,
        "status_move_not_allowed",
        [{ path: "status", message: `not allowed from ${document.status}` }],
        { current_status: document.status, allowed_statuses: allowed },
      );
    }
    let current = document;
    if (path.length === 0) {
      await this.deps.writer.write(tx, current, { ...current, messages: exportMessages(current.messages, failure) }, meta);
      return;
    }
    for (const [index, target] of path.entries()) {
      const last = index === path.length - 1;
      current = await this.moveTo(tx, current, target, exportMessages(current.messages, last ? failure : undefined), meta);
    }
  }

  private async recordExport(
    tx: Tx,
    documentId: string,
    config: Pick<ExportConfig, "id" | "format">,
    runId: string,
    status: "exported" | "export_failed",
  ) {
    await this.deps.store.recordOnDocument(tx, documentId, {
      export_id: config.id,
      run_id: runId,
      format: config.format,
      status,
      at: new Date().toISOString(),
    });
  }
}

/** What configuration.changed shows of an export (nothing secret: names, format, trigger, options). */
/** The row of a run of `config` over `documentIds` as it starts (status `running`, no file yet). */
function startedRun(config: ExportConfig, id: string, documentIds: string[]): Parameters<ExportStore["insertRun"]>[1] {
  const { queueId, organizationId, format, options } = config;
  return { id, exportId: config.id, queueId, organizationId, format, options, status: "running", documentIds };
}

function stateOf(config: ExportConfig) {
  return { name: config.name, format: config.format, trigger: config.trigger, options: config.options };
}

/** `configuration.changed` (resource `export`, its id) with the export before and after; null for none. */
function exportChanged(actor: Actor, config: ExportConfig, previous: ExportConfig | null, current: ExportConfig | null): DocexEvent {
  const target = { organizationId: config.organizationId, resource: "export", resourceId: config.id, queueId: config.queueId } as const;
  return configurationChanged(target, previous ? stateOf(previous) : null, current ? stateOf(current) : null, actor);
}

/** The options as the format's schema has them (defaults filled in); 400 naming each bad one. */
function checkedOptions(format: ExportFormat, options: Record<string, unknown> | undefined): Record<string, unknown> {
  const parsed = FORMAT_OPTIONS[format].safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    `The options do not fit the ${format} format.`,
    parsed.error.issues.map((issue) => ({ path: ["options", ...issue.path].join("."), message: issue.message })),
    "invalid_options",
  );
}

/** The run's file, or why it cannot be made (per document: what each lacks). */
function produce(
  config: Pick<ExportConfig, "format" | "options">,
  documents: StoredDocument[],
  baseName: string,
): { file: ExportFile } | { error: string; failures: Map<string, string> } {
  const invoices = documents.map(invoiceOf);
  const failures = new Map<string, string>();
  for (const invoice of invoices) {
    try {
      runFile(config.format, [invoice], config.options, baseName);
    } catch (error) {
      if (!(error instanceof MissingInvoiceData)) throw error;
      failures.set(invoice.documentId, error.message);
    }
  }
  if (failures.size) {
    const error = [...failures].map(([id, reason]) => `Document ${id}: ${reason}`).join(" ");
    return { error, failures };
  }
  return { file: runFile(config.format, invoices, config.options, baseName) };
}
