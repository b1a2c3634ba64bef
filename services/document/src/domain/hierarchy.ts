import { randomUUID } from "node:crypto";
import { DEFAULT_ANNOTATION_SCHEMA, type FieldDefinition } from "@docex/annotations";
import {
  ConflictError,
  type HumanizedIdSearch,
  insertWithFreeHumanizedId,
  NotFoundError,
  type OutboxEvents,
  type Sql,
  slugFromName,
} from "@docex/kit";
import type { QueueSwitches } from "@docex/queue-dto";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { AccessControl, Actor, MembershipDirectory } from "./access.js";
import type { AutomationSwitches } from "./automation-switches.js";
import { queueCreated } from "./document-events.js";
import { entityRefOf } from "./humanized-id.js";
import type { ExtractionEngine, Queue, Workspace } from "./records.js";

export interface HierarchyDependencies {
  sql: Sql;
  store: HierarchyStore;
  events: OutboxEvents;
  access: AccessControl;
  membership: MembershipDirectory;
  automation: AutomationSwitches;
}

/** A queue with the automation switches its DTO shows (from document's projection of automation's events). */
export interface QueueView {
  queue: Queue;
  automation: QueueSwitches;
}

/**
 * Picks the humanized id: the one asked for (taken → 409), or the kit's: a slug of the name, with the
 * smallest free numeric suffix when the plain slug is taken.
 */
async function withHumanizedId<T>(
  kind: "workspace" | "queue",
  requested: string | undefined,
  name: string,
  search: HumanizedIdSearch<T>,
): Promise<T> {
  const { insert } = search;
  if (requested) {
    const inserted = await insert(requested);
    if (inserted) return inserted;
    throw new ConflictError(`The humanized id ${requested} is already used by another ${kind}.`, "humanized_id_taken", [
      { path: "humanized_id", message: "already taken" },
    ]);
  }
  const inserted = await insertWithFreeHumanizedId(slugFromName(name, kind), search);
  if (inserted) return inserted;
  throw new ConflictError(`Could not find a free humanized id for this ${kind}; send one.`, "humanized_id_taken");
}

/** Workspaces and queues: the levels between an organization (membership's) and its documents. */
export class Hierarchy {
  constructor(private readonly deps: HierarchyDependencies) {}

  /**
   * The organization is found among the caller's own (membership's ListOrganizationsOfUser), by UUID or
   * humanized id, so an organization the caller is not in answers 404 like one that does not exist.
   */
  async createWorkspace(actor: Actor, input: { organizationRef: string; name: string; humanizedId?: string }): Promise<Workspace> {
    const notFound = () => new NotFoundError(`Organization ${input.organizationRef} does not exist.`, "organization_not_found");
    const ref = entityRefOf(input.organizationRef);
    const organizations = await this.deps.membership.organizationsOf(actor.userId, { requestId: actor.requestId });
    const organization = organizations.find((candidate) =>
      "id" in ref ? candidate.id === ref.id : candidate.humanizedId === ref.humanizedId,
    );
    if (!organization) throw notFound();
    await this.deps.store.rememberOrganization(organization);
    await this.deps.access.require(actor, "workspace.create", { organizationId: organization.id }, notFound);
    return withHumanizedId("workspace", input.humanizedId, input.name, {
      taken: (slug) => this.deps.store.humanizedIdsLike("workspaces", slug),
      insert: (humanizedId) =>
        this.deps.store.insertWorkspace({ id: randomUUID(), humanizedId, organizationId: organization.id, name: input.name }),
    });
  }

  async workspace(actor: Actor, ref: string): Promise<Workspace> {
    const notFound = () => new NotFoundError(`Workspace ${ref} does not exist.`, "workspace_not_found");
    const workspace = await this.deps.store.findWorkspace(entityRefOf(ref));
    if (!workspace) throw notFound();
    await this.deps.access.requireReadable(actor, { organizationId: workspace.organizationId }, notFound);
    return workspace;
  }

  /** Creates the queue and announces `queue.created` in the same transaction. */
  async createQueue(
    actor: Actor,
    input: {
      workspaceRef: string;
      name: string;
      humanizedId?: string;
      annotationSchema?: FieldDefinition[];
      duplicateFileRejection?: boolean;
      extractionEngine?: ExtractionEngine;
    },
  ): Promise<QueueView> {
    const workspace = await this.workspace(actor, input.workspaceRef);
    const notFound = () => new NotFoundError(`Workspace ${input.workspaceRef} does not exist.`, "workspace_not_found");
    await this.deps.access.require(actor, "queue.manage", { organizationId: workspace.organizationId }, notFound);
    const queue = await this.deps.sql.transaction(async (tx) => {
      const created = await withHumanizedId("queue", input.humanizedId, input.name, {
        taken: (slug) => this.deps.store.humanizedIdsLike("queues", slug, tx),
        insert: (humanizedId) =>
          this.deps.store.insertQueue(tx, {
            id: randomUUID(),
            humanizedId,
            workspaceId: workspace.id,
            organizationId: workspace.organizationId,
            name: input.name,
            annotationSchema: input.annotationSchema ?? [...DEFAULT_ANNOTATION_SCHEMA],
            duplicateFileRejection: input.duplicateFileRejection ?? false,
            extractionEngine: input.extractionEngine ?? "builtin",
          }),
      });
      await this.deps.events.add(tx, queueCreated(created, { userId: actor.userId, requestId: actor.requestId }));
      return created;
    });
    return { queue, automation: await this.deps.automation.of(queue.id) };
  }

  async queue(actor: Actor, ref: string): Promise<QueueView> {
    const notFound = () => new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
    const queue = await this.deps.store.findQueue(entityRefOf(ref));
    if (!queue) throw notFound();
    await this.deps.access.requireReadable(actor, { organizationId: queue.organizationId, queueId: queue.id }, notFound);
    return { queue, automation: await this.deps.automation.of(queue.id) };
  }
}
