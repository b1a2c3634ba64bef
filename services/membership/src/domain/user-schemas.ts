import { ForbiddenError, NotFoundError, ValidationError } from "@docex/kit/errors";
import type { MembershipStore, Organization, UserSchemaField } from "../store/membership-store.js";
import type { DocumentPort } from "./document-port.js";
import { userSchemaChanged } from "./membership-events.js";
import type { RequestContext } from "./organizations.js";
import { decidePermission, type Grant, mayManage } from "./roles.js";

export type { UserSchemaField };

export interface UserSchemaChange {
  userId: string;
  /** Null: the organization-wide schema of the member. */
  queueId: string | null;
  fields: UserSchemaField[];
}

/**
 * Which annotation fields a member sees or may edit, organization-wide and per queue. A change replaces
 * the fields of that (member, queue) pair; an empty list clears them. The document service reads the
 * effective schema over gRPC: the queue's entries over the organization-wide ones, key by key.
 */
export class UserSchemas {
  constructor(
    private readonly store: MembershipStore,
    private readonly queues: DocumentPort,
  ) {}

  /** Replaces the fields and publishes `configuration.changed` (resource `user_schema`) with them before and after. */
  async manage(organization: Organization, caller: Grant, change: UserSchemaChange, ctx: RequestContext): Promise<UserSchemaChange> {
    // A queue outside the caller's queue_ids is one they cannot see: 404, as every service answers it; so is
    // one that does not exist or is another organization's.
    if (change.queueId !== null) {
      const queueId = change.queueId;
      const visible = caller.queueIds === null || caller.queueIds.includes(queueId);
      if (!visible || !(await this.queues.queueIn(organization.id, queueId, ctx))) {
        throw new NotFoundError(`Queue ${queueId} does not exist.`, "queue_not_found");
      }
    }
    const target = await this.store.memberships.findGrant(organization.id, change.userId);
    if (!target)
      throw new ValidationError("The request body is invalid.", [
        { path: "user_id", message: "This user is not a member of the organization." },
      ]);
    if (!decidePermission(caller, "user.manage") || !mayManage(caller, target)) {
      throw new ForbiddenError(
        caller.userId === target.userId
          ? "Nobody manages their own user schema."
          : `Your role may not manage a member who is ${target.role}.`,
      );
    }
    await this.store.transaction(async (tx) => {
      const previous = await this.store.userSchemas.userSchemaFor(tx, organization.id, change.userId, change.queueId);
      await this.store.userSchemas.saveUserSchema(tx, organization.id, change.userId, change.queueId, change.fields);
      const event = { organizationId: organization.id, userId: change.userId, queueId: change.queueId, previous, current: change.fields };
      await this.store.events.add(tx, userSchemaChanged(event, ctx));
    });
    return change;
  }

  /** Only keys with a rule (hidden or read-only) after the queue's entries are laid over the organization's. */
  async effective(organizationId: string, userId: string, queueId: string | null): Promise<UserSchemaField[]> {
    const layers = await this.store.userSchemas.userSchemaLayers(organizationId, userId, queueId);
    const merged = new Map<string, UserSchemaField>();
    for (const field of [...layers.organization, ...layers.queue]) merged.set(field.key, field);
    return [...merged.values()].filter((field) => field.hidden || field.readonly);
  }
}
