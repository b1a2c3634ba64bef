import { ROLES, type Role } from "@docex/events";

export { ROLES, type Role };

export type MembershipStatus = "active" | "invited" | "deactivated";

/** What a member may see and do in one organization; `queueIds` null means every queue. */
export interface Grant {
  userId: string;
  role: Role;
  queueIds: string[] | null;
  status: MembershipStatus;
}

/** Permission names of membership.proto's CheckPermission. */
export const PERMISSIONS = [
  "document.read",
  "document.edit",
  "document.approve",
  "workspace.create",
  "queue.manage",
  "signing_key.manage",
  "user.manage",
  "audit_log.read",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

export function isRole(name: string): name is Role {
  return (ROLES as readonly string[]).includes(name);
}

/** Roles that may be limited to some queues; owners and supervisors always see every queue. */
export const QUEUE_SCOPED_ROLES: ReadonlySet<Role> = new Set<Role>(["admin", "editor", "approver", "viewer"]);

/**
 * The table of API.md "Roles": which role holds which permission. `queues` marks permissions that a
 * queue-scoped membership holds only within its queue_ids. An approver's document.read and
 * document.approve cover only the documents assigned to them, which the document service knows:
 * membership answers "allowed" with role "approver" and the caller narrows to the assignments.
 */
const TABLE: Record<Permission, Partial<Record<Role, "organization" | "queues">>> = {
  "document.read": {
    owner: "organization",
    supervisor: "organization",
    admin: "queues",
    editor: "queues",
    approver: "queues",
    viewer: "queues",
  },
  "document.edit": { owner: "organization", supervisor: "organization", admin: "queues", editor: "queues" },
  "document.approve": { owner: "organization", supervisor: "organization", admin: "queues", editor: "queues", approver: "queues" },
  "workspace.create": { owner: "organization", supervisor: "organization" },
  "queue.manage": { owner: "organization", supervisor: "organization", admin: "queues" },
  "signing_key.manage": { owner: "organization", supervisor: "organization" },
  "user.manage": { owner: "organization", supervisor: "organization", admin: "organization" },
  "audit_log.read": { owner: "organization", supervisor: "organization" },
};

/** Whose memberships a role may change ("manage users" row): owners everyone, supervisors four roles, admins two. */
const MANAGEABLE: Record<Role, ReadonlySet<Role>> = {
  owner: new Set<Role>(ROLES),
  supervisor: new Set<Role>(["admin", "editor", "approver", "viewer"]),
  admin: new Set<Role>(["editor", "viewer"]),
  editor: new Set<Role>(),
  approver: new Set<Role>(),
  viewer: new Set<Role>(),
};

/** A member that counts: one who accepted and is not deactivated. A pending invitation grants nothing. */
export function isEffective(grant: Pick<Grant, "status"> | undefined): boolean {
  return grant !== undefined && grant.status === "active";
}

function coversQueue(queueIds: string[] | null, queueId: string): boolean {
  return queueIds === null || queueIds.includes(queueId);
}

/** Whether `scope` (null: every queue) lies within what `grant` covers. */
function withinQueues(grant: Pick<Grant, "queueIds">, scope: string[] | null): boolean {
  if (grant.queueIds === null) return true;
  if (scope === null) return false;
  return scope.every((queueId) => grant.queueIds!.includes(queueId));
}

/**
 * CheckPermission. Without a queue the organization as a whole is asked: a queue-scoped member holds the
 * permission somewhere in it, except queue.manage (creating a queue), which a queue-scoped admin lacks
 * because the new queue would lie outside their queues.
 */
export function decidePermission(grant: Grant | undefined, permission: Permission, queueId?: string): boolean {
  if (!grant || !isEffective(grant)) return false;
  const reach = TABLE[permission][grant.role];
  if (reach === undefined) return false;
  if (reach === "organization") return true;
  if (queueId !== undefined) return coversQueue(grant.queueIds, queueId);
  return permission === "queue.manage" ? grant.queueIds === null : true;
}

/**
 * Whether `manager` may change `target`'s membership (`is_manageable`): the "manage users" row of the
 * table, nobody manages themselves, and an admin limited to some queues manages only members whose
 * queues lie within theirs.
 */
export function mayManage(manager: Grant, target: Pick<Grant, "userId" | "role" | "queueIds">): boolean {
  if (manager.userId === target.userId) return false;
  return mayActOnRole(manager, target);
}

/** The table's rule without the self rule: the role and queues of `target` lie within what `manager` manages. */
export function mayActOnRole(manager: Grant, target: Pick<Grant, "role" | "queueIds">): boolean {
  if (!isEffective(manager)) return false;
  return MANAGEABLE[manager.role].has(target.role) && withinQueues(manager, target.queueIds);
}

/** Whether a member may see `other` in raw-memberships: anyone whose queues overlap theirs, and themselves. */
export function mayView(viewer: Grant, other: Pick<Grant, "userId" | "queueIds">): boolean {
  if (viewer.userId === other.userId || viewer.queueIds === null || other.queueIds === null) return true;
  return other.queueIds.some((queueId) => viewer.queueIds!.includes(queueId));
}
