import type { DocexEvent } from "@docex/events";
import { ForbiddenError, NotFoundError } from "@docex/kit";
import type { AuditFilter, AuditStore, StoredAuditEntry } from "../store/audit-store.js";
import type { MembershipStore } from "../store/membership-store.js";
import { auditEntryOf, isAudited } from "./audit-entries.js";
import type { Organizations } from "./organizations.js";
import { decidePermission, type Grant, isEffective } from "./roles.js";

export type AuditQuery = Omit<AuditFilter, "organizationId" | "documentId">;

export interface AuditPage {
  entries: StoredAuditEntry[];
  total: number;
}

const DAY_MS = 24 * 3600 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The audit log: every audited event, recorded once for each organization that may see it, and read by the
 * organization's owners and supervisors. It is built from the events the services publish, so it says what
 * happened after it happened (a request's entries appear as soon as its events are consumed, usually within
 * milliseconds).
 */
export class AuditLog {
  constructor(
    private readonly audit: AuditStore,
    private readonly memberships: MembershipStore,
    private readonly organizations: Organizations,
    private readonly retentionDays: number,
  ) {}

  /**
   * Records an event; others are ignored. A login belongs to every organization the user is a member of (so an
   * owner sees failed attempts on a member's account); one of nobody is kept without an organization.
   */
  async record(event: DocexEvent): Promise<boolean> {
    if (!isAudited(event.type)) return false;
    const entry = auditEntryOf(event as Parameters<typeof auditEntryOf>[0]);
    let organizationIds: Array<string | null> = [event.organization_id];
    if (event.organization_id === null && entry.userId !== null) {
      const memberOf = await this.audit.organizationsOfUser(entry.userId);
      if (memberOf.length > 0) organizationIds = memberOf;
    }
    await this.audit.append(entry, organizationIds);
    return true;
  }

  async ofOrganization(ref: string, callerId: string, query: AuditQuery, page: { offset: number; limit: number }): Promise<AuditPage> {
    const { organization, caller } = await this.organizations.visibleTo(ref, callerId);
    assertMayRead(caller);
    return this.audit.page({ ...query, organizationId: organization.id }, page);
  }

  /** A document of an organization the caller is not in answers 404, like one that does not exist. */
  async ofDocument(documentId: string, callerId: string, query: AuditQuery, page: { offset: number; limit: number }): Promise<AuditPage> {
    const organizationId = UUID.test(documentId) ? await this.audit.organizationOfDocument(documentId) : undefined;
    const caller = organizationId && (await this.memberships.findGrant(organizationId, callerId));
    if (!organizationId || !caller || !isEffective(caller)) {
      throw new NotFoundError("No document with this id is visible to you.", "document_not_found");
    }
    assertMayRead(caller);
    return this.audit.page({ ...query, documentId, organizationId }, page);
  }

  /** Deletes what is older than the retention period; returns how many entries went. */
  purgeExpired(now = new Date()): Promise<number> {
    return this.audit.purgeOlderThan(new Date(now.getTime() - this.retentionDays * DAY_MS));
  }
}

function assertMayRead(caller: Grant): void {
  if (!decidePermission(caller, "audit_log.read")) throw new ForbiddenError("Only owners and supervisors read the audit log.");
}
