import { useEffect, useState } from "react";
import type { DocumentStatus, Organization, Queue, Workspace } from "../api/types.ts";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";
import { followLink } from "../router.ts";

type QueueSummary = Pick<Queue, "id" | "name" | "humanized_id">;

interface Tree {
  organization: Organization;
  workspaces: { workspace: Workspace; queues: QueueSummary[] }[];
}

type Counts = Partial<Record<DocumentStatus, number>>;

/** Every page of a paginated list. */
async function allPages<T>(load: (page: number) => Promise<{ data?: { data: T[]; pagination: { total_pages: number } } }>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const { data } = await load(page);
    if (!data) return items;
    items.push(...data.data);
    if (page >= data.pagination.total_pages) return items;
  }
}

/** Organizations → workspaces → queues, with counts per status where the API offers them. */
export function QueuesScreen() {
  const { api } = useServices();
  const i18n = useI18n();
  const [trees, setTrees] = useState<Tree[] | undefined>();
  const [counts, setCounts] = useState<Record<string, Counts>>({});
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    (async () => {
      const first = await api.GET("/api/v2/organizations", { params: { query: { page: 1, page_size: 100 } } });
      if (!first.data) throw new Error(first.error?.detail ?? String(first.response.status));
      const organizations = await allPages((page) => api.GET("/api/v2/organizations", { params: { query: { page, page_size: 100 } } }));
      const loaded = await Promise.all(
        organizations.map(async (organization) => {
          const workspaces = await allPages((page) =>
            api.GET("/api/v2/organizations/{organization_id}/workspaces", {
              params: { path: { organization_id: organization.id }, query: { page, page_size: 100 } },
            }),
          );
          return {
            organization,
            workspaces: await Promise.all(
              workspaces.map(async (workspace) => ({
                workspace,
                queues: await allPages((page) =>
                  api.GET("/api/v2/workspaces/{workspace_id}/queues", {
                    params: { path: { workspace_id: workspace.id }, query: { page, page_size: 100 } },
                  }),
                ),
              })),
            ),
          };
        }),
      );
      if (!live) return;
      setTrees(loaded);
      // Counts are an extra: a stack without the route (404) or a failure shows the queues without them.
      for (const queue of loaded.flatMap((tree) => tree.workspaces.flatMap((entry) => entry.queues))) {
        api
          .GET("/api/v2/queues/{queue_id}/document-counts", { params: { path: { queue_id: queue.id } } })
          .then(({ data }) => {
            if (live && data) setCounts((current) => ({ ...current, [queue.id]: data.data }));
          })
          .catch(() => undefined);
      }
    })().catch((failure: unknown) => {
      if (live) setError(failure instanceof Error ? failure.message : String(failure));
    });
    return () => {
      live = false;
    };
  }, [api]);

  if (error) return <p role="alert">{i18n.t("loadFailed", { detail: error })}</p>;
  if (!trees) return <p aria-live="polite">{i18n.t("loading")}</p>;
  const empty = trees.every((tree) => tree.workspaces.every((entry) => entry.queues.length === 0));
  return (
    <section aria-labelledby="queues-title">
      <h1 id="queues-title">{i18n.t("queues")}</h1>
      <p>
        <a href="/app/documents" onClick={(event) => followLink(event, { screen: "documents", page: 1 })}>
          {i18n.t("allDocuments")}
        </a>
      </p>
      {empty && <p>{i18n.t("noQueues")}</p>}
      {trees.map(({ organization, workspaces }) => (
        <section key={organization.id} className="organization" aria-label={organization.name}>
          <h2>{organization.name}</h2>
          {workspaces.map(({ workspace, queues }) => (
            <section key={workspace.id} className="workspace" aria-label={workspace.name}>
              <h3>{workspace.name}</h3>
              <ul className="queues">
                {queues.map((queue) => (
                  <li key={queue.id}>
                    <a
                      href={`/app/queues/${queue.id}`}
                      onClick={(event) => followLink(event, { screen: "queue", queueId: queue.id, page: 1 })}
                    >
                      {queue.name}
                    </a>
                    {counts[queue.id] && <StatusCounts counts={counts[queue.id]!} />}
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </section>
      ))}
    </section>
  );
}

function StatusCounts({ counts }: { counts: Counts }) {
  const i18n = useI18n();
  const shown = Object.entries(counts).filter(([status, count]) => count && status !== "deleted");
  if (shown.length === 0) return null;
  return (
    <ul className="counts">
      {shown.map(([status, count]) => (
        <li key={status} className={`status status-${status}`}>
          {i18n.status(status)}: {count}
        </li>
      ))}
    </ul>
  );
}
