import { type ChangeEvent, type DragEvent, useCallback, useEffect, useRef, useState } from "react";
import type { DocumentDto, Pagination, Queue } from "../api/types.ts";
import { DOCUMENT_STATUSES } from "../api/types.ts";
import { useServices } from "../context.ts";
import { type MessageKey, useI18n } from "../i18n.ts";
import { followLink, navigate, type Place } from "../router.ts";

const PAGE_SIZE = 20;
/** While a listed document is still being read, the list is read again this often (no change feed yet). */
const IN_FLIGHT_POLL_MS = 2_000;
const IN_FLIGHT = new Set(["received", "extracting", "exporting"]);

type QueuePlace = Extract<Place, { screen: "queue" }> | Extract<Place, { screen: "documents" }>;

interface UploadState {
  id: number;
  name: string;
  state: "uploading" | "done" | "failed";
  detail?: string;
}

/** How the list is ordered: the API's `sort` values. */
const SORTS = ["-created_at", "created_at", "due_date", "-due_date", "-total_due", "total_due"] as const;
type Sort = (typeof SORTS)[number];

/** The list's filters besides status and page (kept while the screen is open). */
interface Filters {
  q: string;
  from: string;
  to: string;
  mine: boolean;
  sort: Sort;
}

const annotationValue = (document: DocumentDto, key: string) =>
  document.annotations.find((annotation) => annotation.key === key)?.value ?? "";

/**
 * A queue's documents: filtered by status, text (invoice number, supplier, file name), date range and "assigned to me",
 * sorted, paged, with uploads by drag and drop or the file picker.
 */
export function QueueScreen({ place }: { place: QueuePlace }) {
  const { api } = useServices();
  /** Undefined: every document the person may read, across their queues (GET /documents). */
  const queueId = place.screen === "queue" ? place.queueId : undefined;
  const [queueNames, setQueueNames] = useState<Record<string, string>>({});
  const i18n = useI18n();
  const { t } = i18n;
  const [queue, setQueue] = useState<Queue | undefined>();
  const [documents, setDocuments] = useState<DocumentDto[] | undefined>();
  const [pagination, setPagination] = useState<Pagination | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [uploads, setUploads] = useState<UploadState[]>([]);
  const [dragging, setDragging] = useState(false);
  const [filters, setFilters] = useState<Filters>({ q: "", from: "", to: "", mine: false, sort: "-created_at" });
  const picker = useRef<HTMLInputElement>(null);
  const uploadCounter = useRef(0);

  useEffect(() => {
    if (!queueId) return;
    void api.GET("/api/v2/queues/{queue_id}", { params: { path: { queue_id: queueId } } }).then(({ data, error: problem }) => {
      if (data) setQueue(data.data);
      else setError(problem?.detail ?? "");
    });
  }, [api, queueId]);

  // Across queues, each row names its queue: the names of those listed, asked for once each.
  useEffect(() => {
    if (queueId || !documents) return;
    const missing = [...new Set(documents.map((document) => document.queue_id))].filter((id) => !(id in queueNames));
    for (const id of missing)
      void api.GET("/api/v2/queues/{queue_id}", { params: { path: { queue_id: id } } }).then(({ data }) => {
        if (data) setQueueNames((current) => ({ ...current, [id]: data.data.name }));
      });
  }, [api, queueId, documents, queueNames]);

  const load = useCallback(async () => {
    const query = {
      page: place.page,
      page_size: PAGE_SIZE,
      sort: filters.sort,
      ...(place.status ? { status: place.status } : {}),
      ...(filters.q.trim() ? { q: filters.q.trim() } : {}),
      ...(filters.from ? { created_from: filters.from } : {}),
      ...(filters.to ? { created_to: filters.to } : {}),
      ...(filters.mine ? { assigned_to_me: "true" as const } : {}),
    };
    const { data, error: problem } = queueId
      ? await api.GET("/api/v2/queues/{queue_id}/documents", { params: { path: { queue_id: queueId }, query } })
      : await api.GET("/api/v2/documents", { params: { query } });
    if (data) {
      setDocuments(data.data);
      setPagination(data.pagination);
      setError(undefined);
    } else setError(problem?.detail ?? "");
    return data?.data ?? [];
  }, [api, queueId, place.page, place.status, filters]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const tick = async () => {
      const listed = await load().catch(() => []);
      const waiting = listed.some((document) => IN_FLIGHT.has(document.status)) || uploads.some((upload) => upload.state === "uploading");
      if (live && waiting) timer = setTimeout(() => void tick(), IN_FLIGHT_POLL_MS);
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [load, uploads]);

  const upload = async (files: readonly File[]) => {
    const started = files.map((file) => ({ id: ++uploadCounter.current, name: file.name, state: "uploading" as const }));
    setUploads((current) => [...started, ...current].slice(0, 20));
    await Promise.all(
      files.map(async (file, index) => {
        const id = started[index]!.id;
        const { error: problem, response } = await api.POST("/api/v2/queues/{queue_id}/documents", {
          params: { path: { queue_id: queueId ?? "" } },
          // The multipart form: the file streams through the gateway as it is.
          body: { file_name: file.name } as never,
          bodySerializer: () => {
            const form = new FormData();
            form.append("file", file, file.name);
            return form;
          },
        });
        setUploads((current) =>
          current.map((entry) =>
            entry.id === id
              ? {
                  ...entry,
                  state: response.ok ? "done" : "failed",
                  ...(response.ok ? {} : { detail: problem?.detail ?? String(response.status) }),
                }
              : entry,
          ),
        );
      }),
    );
    await load();
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const files = [...event.dataTransfer.files];
    if (files.length) void upload(files);
  };
  const onPick = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    event.target.value = "";
    if (files.length) void upload(files);
  };

  const go = (change: { status?: string | undefined; page?: number }) => navigate({ ...place, ...change } as QueuePlace);
  const filter = (change: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...change }));
    if (place.page !== 1) go({ page: 1 });
  };
  const pages = Math.max(1, pagination?.total_pages ?? 1);

  return (
    <section aria-labelledby="queue-title">
      <p>
        <a href="/app/" onClick={(event) => followLink(event, { screen: "queues" })}>
          {t("queues")}
        </a>
      </p>
      <h1 id="queue-title">{queueId ? (queue?.name ?? t("documents")) : t("allDocuments")}</h1>
      {queueId && (
        <section
          className={dragging ? "dropzone dragging" : "dropzone"}
          aria-label={t("upload")}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <span>{t("dropHere")} </span>
          <button type="button" className="secondary" onClick={() => picker.current?.click()}>
            {t("choose")}
          </button>
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            aria-label={t("upload")}
            accept=".pdf,.png,.jpg,.jpeg,.tif,.tiff,.xml,.isdocx,application/pdf,image/*,application/xml,text/xml"
            onChange={onPick}
          />
          <ul className="uploads" aria-live="polite">
            {uploads.map((entry) => (
              <li key={entry.id} className={`upload upload-${entry.state}`}>
                {entry.state === "uploading"
                  ? t("uploading", { name: entry.name })
                  : entry.state === "done"
                    ? t("uploaded", { name: entry.name })
                    : t("uploadFailed", { name: entry.name, detail: entry.detail ?? "" })}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="filters">
        <label htmlFor="status-filter">{t("status")}</label>
        <select
          id="status-filter"
          value={place.status ?? ""}
          onChange={(event) => go({ status: event.target.value || undefined, page: 1 })}
        >
          <option value="">{t("allStatuses")}</option>
          {DOCUMENT_STATUSES.filter((status) => status !== "deleted").map((status) => (
            <option key={status} value={status}>
              {i18n.status(status)}
            </option>
          ))}
        </select>
        <label htmlFor="text-filter">{t("search")}</label>
        <input
          id="text-filter"
          type="search"
          value={filters.q}
          placeholder={t("searchHint")}
          onChange={(event) => filter({ q: event.target.value })}
        />
        <label htmlFor="from-filter">{t("createdFrom")}</label>
        <input id="from-filter" type="date" value={filters.from} onChange={(event) => filter({ from: event.target.value })} />
        <label htmlFor="to-filter">{t("createdTo")}</label>
        <input id="to-filter" type="date" value={filters.to} onChange={(event) => filter({ to: event.target.value })} />
        <label>
          <input type="checkbox" checked={filters.mine} onChange={(event) => filter({ mine: event.target.checked })} /> {t("assignedToMe")}
        </label>
        <label htmlFor="sort">{t("sortBy")}</label>
        <select id="sort" value={filters.sort} onChange={(event) => filter({ sort: event.target.value as Sort })}>
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {t(`sort_${sort.replace("-", "desc_")}` as MessageKey)}
            </option>
          ))}
        </select>
      </div>
      {error !== undefined && <p role="alert">{t("loadFailed", { detail: error })}</p>}
      {!documents ? (
        <p aria-live="polite">{t("loading")}</p>
      ) : documents.length === 0 ? (
        <p>{t("noDocuments")}</p>
      ) : (
        <table className="documents">
          <thead>
            <tr>
              <th scope="col">{t("fileName")}</th>
              {!queueId && <th scope="col">{t("queue")}</th>}
              <th scope="col">{t("status")}</th>
              <th scope="col">{t("invoiceId")}</th>
              <th scope="col">{t("supplier")}</th>
              <th scope="col" className="number">
                {t("totalDue")}
              </th>
              <th scope="col">{t("created")}</th>
            </tr>
          </thead>
          <tbody>
            {documents.map((document) => (
              <tr key={document.id} data-status={document.status}>
                <td>
                  <a
                    href={`/app/documents/${document.id}`}
                    onClick={(event) => followLink(event, { screen: "document", documentId: document.id })}
                  >
                    {document.file_name}
                  </a>
                </td>
                {!queueId && (
                  <td>
                    <a
                      href={`/app/queues/${document.queue_id}`}
                      onClick={(event) => followLink(event, { screen: "queue", queueId: document.queue_id, page: 1 })}
                    >
                      {queueNames[document.queue_id] ?? t("queue")}
                    </a>
                  </td>
                )}
                <td>
                  <span className={`status status-${document.status}`}>{i18n.status(document.status)}</span>
                </td>
                <td>{annotationValue(document, "invoice_id")}</td>
                <td>{annotationValue(document, "supplier_name")}</td>
                <td className="number">{annotationValue(document, "total_due")}</td>
                <td>{i18n.date(document.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager" aria-label={t("page", { page: place.page, pages })}>
        <button type="button" className="secondary" disabled={place.page <= 1} onClick={() => go({ page: place.page - 1 })}>
          {t("previous")}
        </button>
        <span>{t("page", { page: place.page, pages })}</span>
        <button type="button" className="secondary" disabled={place.page >= pages} onClick={() => go({ page: place.page + 1 })}>
          {t("next")}
        </button>
      </nav>
    </section>
  );
}
