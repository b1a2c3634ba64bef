import { type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { problemOf } from "../api/client.ts";
import type { DocumentDto, Message, Queue } from "../api/types.ts";
import { useServices } from "../context.ts";
import {
  type AnnotationInput,
  blockingMessages,
  documentBlockers,
  documentMessages,
  type FieldView,
  fieldKeyOf,
  fieldViews,
  filledPosition,
  type Position,
  type Row,
  samePosition,
  tableEdit,
  valueEdit,
} from "../fields.ts";
import { useI18n } from "../i18n.ts";
import { followLink } from "../router.ts";
import { ApprovalPanel } from "./approval-panel.tsx";
import { DocumentLinks } from "./document-links.tsx";
import { type FieldBox, PageView, type Word } from "./page-view.tsx";

/** Statuses in which a person edits the fields here; Confirm is offered in `to_validate`. */
const EDITABLE = new Set(["to_validate", "postponed", "rejected", "export_failed"]);
/** Roles that may edit annotations (API.md's role table); an approver approves, a viewer reads. */
const EDITORS = new Set(["owner", "supervisor", "admin", "editor"]);

const isConfirmShortcut = (event: KeyboardEvent) => event.key === "Enter" && (event.ctrlKey || event.metaKey);

/** The document: its original on the left, its fields on the right in the schema's order, editable, and Confirm. */
export function DocumentScreen({ documentId }: { documentId: string }) {
  const { api, session } = useServices();
  const i18n = useI18n();
  const { t } = i18n;
  const [document, setDocument] = useState<DocumentDto | undefined>();
  const [queue, setQueue] = useState<Queue | undefined>();
  const [role, setRole] = useState<string | undefined>();
  /** The organization's members by user id (name, else email), for the audit trail; empty when the list is refused. */
  const [people, setPeople] = useState<ReadonlyMap<string, string>>(new Map());
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [tables, setTables] = useState<Record<string, Row[]>>({});
  /** Where the words clicked to fill a field are (click-to-fill), sent with its value; typing drops it. */
  const [filled, setFilled] = useState<Record<string, Position>>({});
  const [blocking, setBlocking] = useState<Message[]>([]);
  const [notice, setNotice] = useState<{ kind: "info" | "error"; text: string } | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  /** The value field that has the focus (or had it last): its box is highlighted, a clicked word fills it. */
  const [focused, setFocused] = useState<string | undefined>();
  const form = useRef<HTMLFormElement>(null);
  /** Saves run one after another, and Confirm waits for them. */
  const saving = useRef<Promise<unknown>>(Promise.resolve());
  /** Edits sent and not yet answered, by key: Enter and the blur that follows it save once. */
  const sent = useRef(new Map<string, string>());

  useEffect(() => {
    let live = true;
    (async () => {
      const loaded = await api.GET("/api/v2/documents/{document_id}", { params: { path: { document_id: documentId } } });
      if (!loaded.data) throw new Error(loaded.error?.detail ?? String(loaded.response.status));
      const current = loaded.data.data;
      const [queueAnswer, members] = await Promise.all([
        api.GET("/api/v2/queues/{queue_id}", { params: { path: { queue_id: current.queue_id } } }),
        api
          .GET("/api/v2/organizations/{organization_id}/raw-memberships", {
            params: { path: { organization_id: current.organization_id } },
          })
          .catch(() => undefined),
      ]);
      if (!queueAnswer.data) throw new Error(queueAnswer.error?.detail ?? String(queueAnswer.response.status));
      if (!live) return;
      const me = session.claims?.sub;
      // Unknown (the list refused): offered as editable, and the API's 403 says otherwise.
      setRole(members?.data?.data.find((member) => member.user_id === me)?.role ?? "unknown");
      setPeople(
        new Map((members?.data?.data ?? []).map((member) => [member.user_id, member.name || member.email || member.user_id.slice(0, 8)])),
      );
      setQueue(queueAnswer.data.data);
      setDocument(current);
    })().catch((failure: unknown) => {
      if (live) setLoadError(failure instanceof Error ? failure.message : String(failure));
    });
    return () => {
      live = false;
    };
  }, [api, session, documentId]);

  const views = useMemo(() => (queue && document ? fieldViews(queue, document) : []), [queue, document]);
  const canEdit =
    role !== undefined && (role === "unknown" || EDITORS.has(role)) && document !== undefined && EDITABLE.has(document.status);

  const valueOfField = (view: FieldView) => drafts[view.definition.key] ?? view.value;

  const boxes = useMemo((): FieldBox[] => {
    if (!document) return [];
    const positions = new Map(document.annotations.map((annotation) => [annotation.key, annotation.position]));
    return views.flatMap((view) => {
      const position = filled[view.definition.key] ?? positions.get(view.definition.key);
      return position ? [{ key: view.definition.key, label: view.definition.label, page: position.page, box: position.box }] : [];
    });
  }, [document, views, filled]);

  /**
   * Click-to-fill: the word becomes the focused field's value (Shift: is added to it), saved when the field is left,
   * with the place of the words clicked (so that its box stays, and learning knows where the supplier prints it).
   */
  const fillable = canEdit && views.some((view) => view.definition.key === focused && view.definition.type !== "table");
  const fill = (word: Word, page: number, append: boolean) => {
    const view = views.find((candidate) => candidate.definition.key === focused);
    if (!view || !fillable) return;
    const key = view.definition.key;
    setDrafts((current) => {
      const before = current[key] ?? view.value;
      return { ...current, [key]: append && before ? `${before} ${word.text}` : word.text };
    });
    setFilled((current) => ({ ...current, [key]: filledPosition(current[key], page, word.box, append) }));
  };
  /** A typed value is no longer the words clicked: it goes without a place. */
  const type = (key: string, value: string) => {
    setDrafts((current) => ({ ...current, [key]: value }));
    setFilled(({ [key]: _typedOver, ...rest }) => rest);
  };
  const rowsOfField = (view: FieldView) => tables[view.definition.key] ?? view.rows;

  /** The edits not yet saved: drafts that differ from the document's values. */
  const pendingEdits = useCallback((): AnnotationInput[] => {
    if (!document) return [];
    const edits: AnnotationInput[] = [];
    for (const view of views) {
      const key = view.definition.key;
      if (view.definition.type === "table") {
        const rows = tables[key];
        if (rows && JSON.stringify(rows) !== JSON.stringify(view.rows)) edits.push(tableEdit(key, rows));
      } else {
        const draft = drafts[key];
        const position = filled[key];
        const stored = document.annotations.find((annotation) => annotation.key === key)?.position;
        if ((draft !== undefined && draft !== view.value) || (position && !samePosition(position, stored))) {
          edits.push(valueEdit(document, key, draft ?? view.value, position));
        }
      }
    }
    return edits;
  }, [document, views, drafts, tables, filled]);

  const save = useCallback(async (): Promise<boolean> => {
    const edits = pendingEdits().filter((edit) => sent.current.get(edit.key) !== JSON.stringify(edit));
    if (edits.length === 0) return saving.current.then(() => true);
    for (const edit of edits) sent.current.set(edit.key, JSON.stringify(edit));
    const run = saving.current.then(async () => {
      const { data, error, response } = await api.PATCH("/api/v2/documents/{document_id}/annotations", {
        params: { path: { document_id: documentId } },
        body: { annotations: edits },
      });
      for (const edit of edits) sent.current.delete(edit.key);
      if (!data) {
        setNotice({
          kind: "error",
          text: t("saveFailed", { detail: problemOf(error, response.status).detail || String(response.status) }),
        });
        return false;
      }
      setDocument(data.data);
      const saved = new Map(edits.map((edit) => [edit.key, edit]));
      // A draft typed on while its save was under way stays a draft.
      setDrafts((current) => Object.fromEntries(Object.entries(current).filter(([key, value]) => saved.get(key)?.value !== value)));
      setFilled((current) =>
        Object.fromEntries(Object.entries(current).filter(([key, position]) => !samePosition(saved.get(key)?.position, position))),
      );
      setTables((current) =>
        Object.fromEntries(
          Object.entries(current).filter(
            ([key, rows]) => !saved.has(key) || JSON.stringify(tableEdit(key, rows)) !== JSON.stringify(saved.get(key)),
          ),
        ),
      );
      setBlocking((current) => current.filter((message) => !message.key || !saved.has(message.key)));
      setNotice({ kind: "info", text: t("saved") });
      return true;
    });
    saving.current = run.catch(() => false);
    return run;
  }, [api, documentId, pendingEdits, t]);

  const confirm = useCallback(async () => {
    if (!document || busy) return;
    setBusy(true);
    try {
      if (!(await save())) return;
      const { data, error, response } = await api.POST("/api/v2/documents/{document_id}/status", {
        params: { path: { document_id: documentId } },
        body: { status: "ready_to_export" },
      });
      if (data) {
        setDocument(data.data);
        setBlocking([]);
        setNotice({ kind: "info", text: t("confirmed", { status: i18n.status(data.data.status) }) });
        return;
      }
      const problem = problemOf(error, response.status);
      if (response.status === 409 && problem.code === "blocked_by_error_messages") {
        const messages = blockingMessages(problem);
        setBlocking(messages);
        setNotice({ kind: "error", text: t("blocked") });
        const first = messages.find((message) => message.key)?.key;
        if (first) form.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(first)}"]`)?.focus();
      } else {
        setNotice({ kind: "error", text: problem.detail || String(response.status) });
      }
    } finally {
      setBusy(false);
    }
  }, [api, busy, document, documentId, i18n, save, t]);

  /** Enter accepts the value and moves to the next field; Ctrl+Enter (⌘+Enter) confirms from anywhere. */
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (isConfirmShortcut(event)) {
      event.preventDefault();
      if (canEdit && document?.status === "to_validate") void confirm();
      return;
    }
    const target = event.target as HTMLElement;
    if (event.key === "Enter" && target.matches("input[data-field], select[data-field]")) {
      event.preventDefault();
      void save();
      const inputs = [...(form.current?.querySelectorAll<HTMLElement>("[data-field]:not([disabled])") ?? [])];
      inputs[inputs.indexOf(target) + 1]?.focus();
    }
  };

  if (loadError) return <p role="alert">{t("loadFailed", { detail: loadError })}</p>;
  // The pages are fetched at once, beside the document and its queue, not after them.
  const original = (
    <section className="page-pane" aria-label={t("original")}>
      <PageView
        documentId={documentId}
        fileName={document?.file_name ?? "document"}
        boxes={boxes}
        active={focused}
        onWord={fillable ? fill : undefined}
      />
    </section>
  );
  if (!document || !queue) {
    return (
      <div className="document">
        {original}
        <p aria-live="polite">{t("loading")}</p>
      </div>
    );
  }

  const messagesOf = (view: FieldView) => [
    ...view.messages,
    ...blocking.filter(
      (message) => fieldKeyOf(queue, message.key) === view.definition.key && !view.messages.some((m) => m.message === message.message),
    ),
  ];
  // Why the document waits for a person: shown while it does.
  const waiting = document.status === "to_validate";
  const blockersOf = (view: FieldView) => (waiting ? view.blockers : []);
  const generalBlockers = waiting ? documentBlockers(queue, document) : [];
  const general = [
    ...documentMessages(queue, document.messages),
    ...documentMessages(queue, blocking).filter((m) => !document.messages.includes(m)),
  ];

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the shortcuts of the whole screen are read where its keys bubble to
    <div className="document" onKeyDown={onKeyDown}>
      {original}
      <section className="field-pane" aria-labelledby="document-title">
        <p>
          <a
            href={`/app/queues/${document.queue_id}`}
            onClick={(event) => followLink(event, { screen: "queue", queueId: document.queue_id, page: 1 })}
          >
            {t("back_to_queue")}
          </a>
        </p>
        <h1 id="document-title">{document.file_name}</h1>
        <p>
          {t("status")}:{" "}
          <span className={`status status-${document.status}`} data-testid="document-status">
            {i18n.status(document.status)}
          </span>
        </p>
        <ApprovalPanel
          document={document}
          mayApprove={role !== "viewer"}
          onDecided={(decided, text) => {
            setDocument(decided);
            setNotice({ kind: "info", text });
          }}
        />
        <DocumentLinks document={document} people={people} />
        {role !== undefined && role !== "unknown" && !EDITORS.has(role) && <p className="notice">{t("readOnly")}</p>}
        {EDITORS.has(role ?? "unknown") && !EDITABLE.has(document.status) && (
          <p className="notice">{t("notEditable", { status: i18n.status(document.status) })}</p>
        )}
        {generalBlockers.length > 0 && (
          <section className="blockers" aria-labelledby="blockers-title">
            <h2 id="blockers-title">{t("whyWaiting")}</h2>
            <ul className="messages">
              {generalBlockers.map((reason) => (
                <li key={reason} className="message blocker">
                  {reason}
                </li>
              ))}
            </ul>
          </section>
        )}
        {general.length > 0 && (
          <ul className="messages" aria-label={t("documentMessages")}>
            {general.map((message) => (
              <li key={`${message.severity}:${message.key}:${message.message}`} className={`message ${message.severity}`}>
                {message.message}
              </li>
            ))}
          </ul>
        )}
        <form
          ref={form}
          className="fields"
          aria-label={t("fields")}
          data-ready="true"
          onFocus={(event) => {
            const key = (event.target as HTMLElement).dataset.field;
            // Table cells (key.row.column) have no box of their own.
            if (key && !key.includes(".")) setFocused(key);
          }}
          onSubmit={(event) => {
            event.preventDefault();
            void confirm();
          }}
        >
          {views.map((view) => {
            // What a table and a value field are both given.
            const field = { view, messages: messagesOf(view), blockers: blockersOf(view), disabled: !canEdit, onCommit: () => void save() };
            return view.definition.type === "table" ? (
              <TableField
                key={view.definition.key}
                {...field}
                rows={rowsOfField(view)}
                onChange={(rows) => setTables((current) => ({ ...current, [view.definition.key]: rows }))}
              />
            ) : (
              <ValueField
                key={view.definition.key}
                {...field}
                value={valueOfField(view)}
                onChange={(value) => type(view.definition.key, value)}
              />
            );
          })}
          {notice && (
            <p className={notice.kind === "error" ? "error" : "info"} role={notice.kind === "error" ? "alert" : "status"}>
              {notice.text}
            </p>
          )}
          {canEdit && document.status === "to_validate" && (
            <div className="actions sticky">
              <button type="submit" disabled={busy} aria-keyshortcuts="Control+Enter" title={t("confirmHint")}>
                {t("confirm")}
              </button>
              <span className="hint">{t("confirmHint")}</span>
            </div>
          )}
        </form>
      </section>
    </div>
  );
}

/** A field's messages, and why extraction evaluation kept the document for a person as far as this field goes. */
function FieldMessages({ id, messages, blockers }: { id: string; messages: Message[]; blockers: string[] }) {
  const { t } = useI18n();
  if (messages.length === 0 && blockers.length === 0) return null;
  return (
    <ul className="messages" id={id}>
      {messages.map((message) => (
        <li key={`${message.severity}:${message.message}`} className={`message ${message.severity}`}>
          {message.message}
        </li>
      ))}
      {blockers.map((reason) => (
        <li key={`blocker:${reason}`} className="message blocker">
          {t("keptBecause", { reason })}
        </li>
      ))}
    </ul>
  );
}

function Confidence({ id, view }: { id: string; view: FieldView }) {
  const { t, number } = useI18n();
  if (!view.low || view.confidence === undefined) return null;
  return (
    <span className="confidence low" id={id}>
      {t("lowConfidence")} · {t("confidence", { value: number(view.confidence) })}
    </span>
  );
}

interface ValueFieldProps {
  view: FieldView;
  value: string;
  messages: Message[];
  blockers: string[];
  disabled: boolean;
  onChange(value: string): void;
  onCommit(): void;
}

function ValueField({ view, value, messages, blockers, disabled, onChange, onCommit }: ValueFieldProps) {
  const { key, label, type } = view.definition;
  const id = `field-${key}`;
  const noted = messages.length > 0 || blockers.length > 0;
  const described = [view.low ? `${id}-confidence` : "", noted ? `${id}-messages` : ""].filter(Boolean).join(" ") || undefined;
  const invalid = messages.some((message) => message.severity === "error");
  const common = {
    id,
    "data-field": key,
    disabled,
    "aria-describedby": described,
    "aria-invalid": invalid || undefined,
    onBlur: onCommit,
  };
  return (
    <div className={`field${view.low ? " low" : ""}${invalid ? " invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {view.options.length > 0 ? (
        <select {...common} value={value} onChange={(event) => onChange(event.target.value)}>
          {!view.options.some((option) => option.value === value) && <option value={value}>{value}</option>}
          {view.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type="text"
          inputMode={type === "number" ? "decimal" : undefined}
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      <Confidence id={`${id}-confidence`} view={view} />
      <FieldMessages id={`${id}-messages`} messages={messages} blockers={blockers} />
    </div>
  );
}

interface TableFieldProps {
  view: FieldView;
  rows: Row[];
  messages: Message[];
  blockers: string[];
  disabled: boolean;
  onChange(rows: Row[]): void;
  onCommit(): void;
}

function TableField({ view, rows, messages, blockers, disabled, onChange, onCommit }: TableFieldProps) {
  const { t } = useI18n();
  const columns = view.definition.columns ?? [];
  const id = `field-${view.definition.key}`;
  const setCell = (index: number, column: string, value: string) =>
    onChange(rows.map((row, rowIndex) => (rowIndex === index ? { ...row, [column]: value } : row)));
  const emptyRow = () => Object.fromEntries(columns.map((column) => [column.key, ""]));
  return (
    <fieldset className="field table-field" aria-describedby={messages.length || blockers.length ? `${id}-messages` : undefined}>
      <legend id={`${id}-label`}>{view.definition.label}</legend>
      <table aria-labelledby={`${id}-label`}>
        <thead>
          <tr>
            <th scope="col">#</th>
            {columns.map((column) => (
              <th key={column.key} scope="col">
                {column.label}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">{t("removeRow", { row: "" })}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own; their position is it
            <tr key={index}>
              <th scope="row">{index + 1}</th>
              {columns.map((column) => (
                <td key={column.key}>
                  <input
                    data-field={`${view.definition.key}.${index}.${column.key}`}
                    aria-label={`${column.label} (${t("row", { row: index + 1 })})`}
                    className={column.type === "number" ? "number" : undefined}
                    disabled={disabled}
                    autoComplete="off"
                    value={row[column.key] ?? ""}
                    onChange={(event) => setCell(index, column.key, event.target.value)}
                    onBlur={onCommit}
                  />
                </td>
              ))}
              <td>
                <button
                  type="button"
                  className="secondary small"
                  disabled={disabled}
                  aria-label={t("removeRow", { row: index + 1 })}
                  onClick={() => {
                    onChange(rows.filter((_, rowIndex) => rowIndex !== index));
                  }}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!disabled && (
        <button type="button" className="secondary small" onClick={() => onChange([...rows, emptyRow()])}>
          {t("addRow")}
        </button>
      )}
      <FieldMessages id={`${id}-messages`} messages={messages} blockers={blockers} />
    </fieldset>
  );
}
