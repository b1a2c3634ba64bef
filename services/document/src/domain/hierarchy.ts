import { randomBytes, randomUUID } from "node:crypto";
import { DEFAULT_ANNOTATION_SCHEMA, type FieldDefinition } from "@docex/annotations";
import { type HumanizedIdSearch, insertWithFreeHumanizedId, slugFromName } from "@docex/domain/humanized-id";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import { ConflictError, NotFoundError } from "@docex/kit/errors";
import type { QueueSwitches } from "@docex/queue-dto";
import type { HierarchyStore, QueueChanges } from "../store/hierarchy-store.js";
import { type AccessControl, type Actor, type MembershipDirectory, readableQueue } from "./access.js";
import type { AutomationSwitches } from "./automation-switches.js";
import { hierarchyChanged, queueCreated, queueDeleted, workspaceDeleted } from "./document-events.js";
import { entityRefOf } from "./humanized-id.js";
import type { ExtractionEngine, OrganizationRef, Page, Queue, Workspace } from "./records.js";

export interface HierarchyDependencies {
  sql: UnitOfWork;
  store: HierarchyStore;
  events: OutboxEvents;
  access: AccessControl;
  membership: MembershipDirectory;
  automation: AutomationSwitches;
  /** Removes the files of the documents a deleted queue took with it. */
  files: { discard(documentIds: string[]): Promise<void> };
  /** INTAKE_MAIL_DOMAIN: the domain of queues' inbox addresses. */
  inboxDomain: string;
}

/** A queue with the automation switches its DTO shows (from document's projection of automation's events). */
export interface QueueView {
  queue: Queue;
  automation: QueueSwitches;
  /** `<humanized_id>.<inbox token>@<INTAKE_MAIL_DOMAIN>`. */
  inboxEmail: string;
}

/** The queue's inbox address on `domain`. */
export function inboxAddressOf(queue: Pick<Queue, "humanizedId" | "inboxToken">, domain: string): string {
  return `${queue.humanizedId}.${queue.inboxToken}@${domain}`;
}

/** A page of a list by name: `q` matches anywhere in the name, case-insensitively. */
export interface NameListInput {
  q?: string | undefined;
  page: number;
  pageSize: number;
}

/** The fields of a queue as `configuration.changed` shows them (PATCH /queues/{id}). */
function queueState(queue: Queue): Record<keyof QueueChanges, unknown> {
  return {
    name: queue.name,
    annotationSchema: queue.annotationSchema,
    duplicateFileRejection: queue.duplicateFileRejection,
    extractionEngine: queue.extractionEngine,
    documentLifetimeDays: queue.documentLifetimeDays,
    inboxAllowedSenders: queue.inboxAllowedSenders,
    learnFromValidation: queue.learnFromValidation,
  };
}

const SNAKE_CASE: Record<keyof QueueChanges, string> = {
  name: "name",
  annotationSchema: "annotation_schema",
  duplicateFileRejection: "duplicate_file_rejection",
  extractionEngine: "extraction_engine",
  documentLifetimeDays: "document_lifetime_days",
  inboxAllowedSenders: "inbox_allowed_senders",
  learnFromValidation: "learn_from_validation",
};

/** Of two states of a queue, only the fields that differ, under their API names: what configuration.changed shows. */
function differences(before: Queue, after: Queue): { previous: Record<string, unknown>; current: Record<string, unknown> } {
  const [old, now] = [queueState(before), queueState(after)];
  const previous: Record<string, unknown> = {};
  const current: Record<string, unknown> = {};
  for (const key of Object.keys(old) as Array<keyof QueueChanges>) {
    if (JSON.stringify(old[key]) === JSON.stringify(now[key])) continue;
    previous[SNAKE_CASE[key]] = old[key];
    current[SNAKE_CASE[key]] = now[key];
  }
  return { previous, current };
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

  /** An organization by UUID or humanized id: this service's projection, else membership (remembered). */
  private async organization(ref: string, actor: Actor): Promise<OrganizationRef | undefined> {
    const known = await this.deps.store.findOrganization(entityRefOf(ref));
    if (known) return known;
    const told = await this.deps.membership.organization(ref, { requestId: actor.requestId });
    if (told) await this.deps.store.rememberOrganization(told);
    return told;
  }

  /**
   * The workspaces of an organization the caller may see: all of them for a member covering every queue, otherwise
   * those that hold one of the member's queues. Another organization answers 404 like an unknown one.
   */
  async listWorkspaces(actor: Actor, organizationRef: string, input: NameListInput): Promise<Page<Workspace>> {
    const notFound = () => new NotFoundError(`Organization ${organizationRef} does not exist.`, "organization_not_found");
    const organization = await this.organization(organizationRef, actor);
    if (!organization) throw notFound();
    const reach = await this.deps.membership.reachOf(actor.userId, organization.id, { requestId: actor.requestId });
    if (!reach) throw notFound();
    const { items, total } = await this.deps.store.listWorkspaces(organization.id, {
      ...(input.q ? { q: input.q } : {}),
      queueIds: reach.queueIds,
      offset: (input.page - 1) * input.pageSize,
      limit: input.pageSize,
    });
    return { items, page: input.page, pageSize: input.pageSize, total };
  }

  /** The queues of a workspace the caller may see: a member limited to some queues sees only those. */
  async listQueues(actor: Actor, workspaceRef: string, input: NameListInput): Promise<Page<QueueView>> {
    const workspace = await this.workspace(actor, workspaceRef);
    const reach = await this.deps.membership.reachOf(actor.userId, workspace.organizationId, { requestId: actor.requestId });
    if (!reach) throw new NotFoundError(`Workspace ${workspaceRef} does not exist.`, "workspace_not_found");
    const { items, total } = await this.deps.store.listQueues(workspace.id, {
      ...(input.q ? { q: input.q } : {}),
      queueIds: reach.queueIds,
      offset: (input.page - 1) * input.pageSize,
      limit: input.pageSize,
    });
    const views = await Promise.all(items.map((queue) => this.viewOf(queue)));
    return { items: views, page: input.page, pageSize: input.pageSize, total };
  }

  /** Renames a workspace (owners and supervisors, who create them); its humanized id stays. */
  async renameWorkspace(actor: Actor, ref: string, name: string): Promise<Workspace> {
    const workspace = await this.workspace(actor, ref);
    const notFound = () => new NotFoundError(`Workspace ${ref} does not exist.`, "workspace_not_found");
    await this.deps.access.require(actor, "workspace.create", { organizationId: workspace.organizationId }, notFound);
    if (workspace.name === name) return workspace;
    return this.deps.sql.transaction(async (tx) => {
      const renamed = await this.deps.store.renameWorkspace(tx, workspace.id, name);
      if (!renamed) throw notFound();
      const cause = { userId: actor.userId, requestId: actor.requestId };
      await this.deps.events.add(tx, hierarchyChanged("workspace", renamed, { name: workspace.name }, { name }, cause));
      return renamed;
    });
  }

  /**
   * Changes a queue's name, annotation schema or options (who manages the queue). Documents keep their annotations:
   * a key the new schema lacks stays readable on the documents that have it, a new key starts empty. Publishes
   * `configuration.changed` with the fields that changed.
   */
  async updateQueue(actor: Actor, ref: string, changes: QueueChanges): Promise<QueueView> {
    const { queue } = await this.queue(actor, ref);
    const notFound = () => new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
    await this.deps.access.require(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.id }, notFound);
    // Who may mail a queue is the organization's call: owners and supervisors (those who create workspaces), not a queue's admins.
    if (changes.inboxAllowedSenders !== undefined) {
      await this.deps.access.require(actor, "workspace.create", { organizationId: queue.organizationId }, notFound);
    }
    const updated = await this.deps.sql.transaction(async (tx) => {
      const before = await this.deps.store.lockQueue(tx, queue.id);
      if (!before) throw notFound();
      const after = await this.deps.store.updateQueue(tx, queue.id, changes);
      if (!after) throw notFound();
      const { previous, current } = differences(before, after);
      if (Object.keys(current).length > 0) {
        const cause = { userId: actor.userId, requestId: actor.requestId };
        await this.deps.events.add(tx, hierarchyChanged("queue", after, previous, current, cause));
      }
      return after;
    });
    return this.viewOf(updated);
  }

  /**
   * A new token for the queue's inbox address (who manages the queue): the old address is refused from the commit on.
   * Publishes `configuration.changed` with the old and new address.
   */
  async rotateInbox(actor: Actor, ref: string): Promise<QueueView> {
    const { queue } = await this.queue(actor, ref);
    const notFound = () => new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
    await this.deps.access.require(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.id }, notFound);
    const updated = await this.deps.sql.transaction(async (tx) => {
      const before = await this.deps.store.lockQueue(tx, queue.id);
      if (!before) throw notFound();
      const after = await this.deps.store.rotateInboxToken(tx, queue.id, newInboxToken());
      if (!after) throw notFound();
      const cause = { userId: actor.userId, requestId: actor.requestId };
      const address = (of: Queue) => ({ inbox_email: inboxAddressOf(of, this.deps.inboxDomain) });
      await this.deps.events.add(tx, hierarchyChanged("queue", after, address(before), address(after), cause));
      return after;
    });
    return this.viewOf(updated);
  }

  private async viewOf(queue: Queue): Promise<QueueView> {
    return { queue, automation: await this.deps.automation.of(queue.id), inboxEmail: inboxAddressOf(queue, this.deps.inboxDomain) };
  }

  /**
   * Deletes a queue (who manages it) with its deleted documents and their files; 409 `not_empty` while a document
   * of it is not `deleted`. `queue.deleted` makes every other service remove what it keeps of the queue.
   */
  async deleteQueue(actor: Actor, ref: string): Promise<void> {
    const { queue } = await this.queue(actor, ref);
    const notFound = () => new NotFoundError(`Queue ${ref} does not exist.`, "queue_not_found");
    await this.deps.access.require(actor, "queue.manage", { organizationId: queue.organizationId, queueId: queue.id }, notFound);
    const cause = { userId: actor.userId, requestId: actor.requestId };
    const files = await this.deps.sql.transaction(async (tx) => {
      await this.deps.store.lockForRemoval(tx, [queue.id]);
      await this.refuseWhileDocuments(tx, [queue.id], `queue ${ref}`);
      const files = await this.deps.store.removeQueues(tx, [queue.id]);
      await this.deps.events.add(tx, queueDeleted(queue, cause));
      return files;
    });
    await this.deps.files.discard(files);
  }

  /** Deletes a workspace (owners and supervisors) with its queues, as `deleteQueue` deletes each. */
  async deleteWorkspace(actor: Actor, ref: string): Promise<void> {
    const workspace = await this.workspace(actor, ref);
    const notFound = () => new NotFoundError(`Workspace ${ref} does not exist.`, "workspace_not_found");
    await this.deps.access.require(actor, "workspace.create", { organizationId: workspace.organizationId }, notFound);
    const cause = { userId: actor.userId, requestId: actor.requestId };
    const files = await this.deps.sql.transaction(async (tx) => {
      const queues = await this.deps.store.lockWorkspaceForRemoval(tx, workspace.id);
      const queueIds = queues.map((queue) => queue.id);
      await this.deps.store.lockForRemoval(tx, queueIds);
      await this.refuseWhileDocuments(tx, queueIds, `workspace ${ref}`);
      const files = await this.deps.store.removeQueues(tx, queueIds);
      await this.deps.store.removeWorkspace(tx, workspace.id);
      await this.deps.events.add(tx, ...queues.map((queue) => queueDeleted(queue, cause)), workspaceDeleted(workspace, cause));
      return files;
    });
    await this.deps.files.discard(files);
  }

  private async refuseWhileDocuments(tx: Tx, queueIds: string[], what: string): Promise<void> {
    const live = await this.deps.store.liveDocuments(tx, queueIds);
    if (live === 0) return;
    throw new ConflictError(`The ${what} still holds ${live} document(s) that are not deleted; delete them first.`, "not_empty", [], {
      documents: live,
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
    return this.viewOf(queue);
  }

  async queue(actor: Actor, ref: string): Promise<QueueView> {
    const { queue } = await readableQueue({ queues: this.deps.store, access: this.deps.access }, actor, ref);
    return this.viewOf(queue);
  }
}

/** 64 random bits, as the migration makes them for queues that predate it: 16 lowercase hex characters. */
function newInboxToken(): string {
  return randomBytes(8).toString("hex");
}
