import { useEffect, useState } from "react";
import { problemOf } from "../api/client.ts";
import type { DocumentDto } from "../api/types.ts";
import { useServices } from "../context.ts";
import { type Translator, useI18n } from "../i18n.ts";
import { followLink } from "../router.ts";

/** One entry of GET /documents/{id}/audit-log. */
interface AuditEntry {
  id: string;
  type: string;
  occurred_at: string;
  user_id: string | null;
  details: Record<string, unknown>;
}

/** How many entries the trail shows (the newest); the audit log has them all. */
const TRAIL_SIZE = 50;

/**
 * What is one click away from a document: its possible duplicates (links to them), its audit trail (a panel of
 * GET /documents/{id}/audit-log: who, what, when) and the original file.
 */
export function DocumentLinks({ document, people }: { document: DocumentDto; people: ReadonlyMap<string, string> }) {
  const { t } = useI18n();
  const [trailOpen, setTrailOpen] = useState(false);
  return (
    <div className="document-links">
      <Duplicates ids={document.duplicates ?? []} />
      <div className="actions">
        <button
          type="button"
          className="secondary"
          aria-expanded={trailOpen}
          aria-controls="audit-trail"
          onClick={() => setTrailOpen(!trailOpen)}
        >
          {t("history")}
        </button>
        <DownloadButton documentId={document.id} fileName={document.file_name} />
      </div>
      {trailOpen && <AuditTrail documentId={document.id} people={people} />}
    </div>
  );
}

/** Links to the documents flagged as the same invoice (named by file where the caller may read them). */
function Duplicates({ ids }: { ids: readonly string[] }) {
  const { api } = useServices();
  const { t } = useI18n();
  const [names, setNames] = useState<Record<string, string>>({});
  const key = ids.join(",");

  useEffect(() => {
    let live = true;
    for (const id of key ? key.split(",").slice(0, 10) : []) {
      void api
        .GET("/api/v2/documents/{document_id}", { params: { path: { document_id: id } } })
        .then(({ data }) => {
          if (live && data) setNames((current) => ({ ...current, [id]: data.data.file_name }));
        })
        .catch(() => undefined);
    }
    return () => {
      live = false;
    };
  }, [api, key]);

  if (ids.length === 0) return null;
  return (
    <section className="duplicates notice" aria-labelledby="duplicates-title">
      <h2 id="duplicates-title">{t("duplicates", { count: ids.length })}</h2>
      <ul>
        {ids.map((id) => (
          <li key={id}>
            <a
              href={`/app/documents/${encodeURIComponent(id)}`}
              onClick={(event) => followLink(event, { screen: "document", documentId: id })}
            >
              {names[id] ?? t("documentShort", { id: id.slice(0, 8) })}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What an audit entry says happened, in words. */
function whatHappened(entry: AuditEntry, i18n: Translator): string {
  const { t, status } = i18n;
  const details = entry.details;
  switch (entry.type) {
    case "document.created":
      return t("auditCreated");
    case "document.extracted":
      return t("auditExtracted", { fields: Number(details.fields ?? 0) });
    case "document.annotations_changed": {
      const changes = Array.isArray(details.changes) ? (details.changes as { key: string; after: { value?: string } | null }[]) : [];
      return t("auditEdited", {
        fields: changes.map((change) => (change.after?.value ? `${change.key} = ${change.after.value}` : change.key)).join(", "),
      });
    }
    case "document.status_changed":
      return t("auditStatus", { from: status(String(details.from ?? "")), to: status(String(details.to ?? "")) });
    case "document.approved":
      return t("auditApproved");
    default:
      return entry.type;
  }
}

/** The document's audit trail, newest first: who did what, and when. Owners and supervisors may read it (API.md). */
function AuditTrail({ documentId, people }: { documentId: string; people: ReadonlyMap<string, string> }) {
  const { api } = useServices();
  const i18n = useI18n();
  const { t } = i18n;
  const [entries, setEntries] = useState<AuditEntry[] | undefined>();
  const [failure, setFailure] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    void api
      .GET("/api/v2/documents/{document_id}/audit-log", {
        params: { path: { document_id: documentId }, query: { page_size: TRAIL_SIZE, order: "desc" } },
      })
      .then(({ data, error, response }) => {
        if (!live) return;
        if (data) setEntries(data.data as AuditEntry[]);
        else
          setFailure(response.status === 403 ? t("historyForbidden") : problemOf(error, response.status).detail || String(response.status));
      })
      .catch((reason: unknown) => live && setFailure(String(reason)));
    return () => {
      live = false;
    };
  }, [api, documentId, t]);

  return (
    <section id="audit-trail" className="audit-trail" aria-labelledby="audit-trail-title" aria-busy={entries === undefined && !failure}>
      <h2 id="audit-trail-title">{t("history")}</h2>
      {failure ? (
        <p>{failure}</p>
      ) : entries === undefined ? (
        <p aria-live="polite">{t("loading")}</p>
      ) : entries.length === 0 ? (
        <p>{t("historyEmpty")}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("when")}</th>
              <th scope="col">{t("who")}</th>
              <th scope="col">{t("what")}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-type={entry.type}>
                <td>
                  <time dateTime={entry.occurred_at}>{i18n.date(entry.occurred_at)}</time>
                </td>
                <td>{entry.user_id === null ? t("system") : (people.get(entry.user_id) ?? entry.user_id.slice(0, 8))}</td>
                <td>{whatHappened(entry, i18n)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The original file, fetched with the token only when asked for (the pages are what is shown). */
export function DownloadButton({ documentId, fileName }: { documentId: string; fileName: string }) {
  const { api } = useServices();
  const { t } = useI18n();
  return (
    <button
      type="button"
      className="secondary"
      onClick={async () => {
        const { data } = await api.GET("/api/v2/documents/{document_id}/file", {
          params: { path: { document_id: documentId } },
          parseAs: "blob",
        });
        if (!data) return;
        const url = URL.createObjectURL(data as Blob);
        const link = window.document.createElement("a");
        link.href = url;
        link.download = fileName;
        link.click();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      }}
    >
      {t("download")}
    </button>
  );
}
