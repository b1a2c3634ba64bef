import type { DocexEvent } from "@docex/events";
import { ForbiddenError, NotFoundError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { AuditFilter, AuditStore, StoredAuditEntry } from "../store/audit-store.js";
import { auditEntryOf, isAudited } from "./audit-entries.js";
import type { CallContext, Membership, ReadAccess } from "./readers.js";

export type AuditQuery = Omit<AuditFilter, "organizationId" | "documentId">;

export interface AuditPage {
  entries: StoredAuditEntry[];
  total: number;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * The audit log: every audited event, recorded once for each organization that may see it, and read by the
 * organization's owners and supervisors (membership decides who they are). It is built from the events the services
 * publish, so it says what happened after it happened (a request's entries appear as soon as its events are consumed,
 * usually within milliseconds).
 */
export class AuditLog {
  constructor(
    private readonly audit: AuditStore,
    private readonly membership: Membership,
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
      const memberOf = await this.membership.organizationsOfMember(entry.userId);
      if (memberOf.length > 0) organizationIds = memberOf;
    }
    await this.audit.append(entry, organizationIds);
    await this.eraseOnRequest(event);
    return true;
  }

  /**
   * After recording an erasure: the person's own entries keep their shape, without values. An owner's erasure covers
   * their organization's entries, unless the person's account went with it (they were in no other organization);
   * the person's own, every organization's.
   */
  private async eraseOnRequest(event: DocexEvent): Promise<void> {
    if (event.type === "user.personal_data_erased") {
      await this.audit.eraseValuesOf(event.data.user_id, undefined, event.id);
    } else if (event.type === "member.personal_data_erased") {
      const scope = event.data.account_erased ? undefined : event.data.organization_id;
      await this.audit.eraseValuesOf(event.data.user_id, scope, event.id);
    } else if (event.type === "documents.purged") {
      await this.audit.eraseValuesOfDocuments(event.data.document_ids, event.data.organization_id);
    }
  }

  /** An organization that does not exist, or of which the caller is no member, answers 404 before anything else. */
  async ofOrganization(
    ref: string,
    callerId: string,
    query: AuditQuery,
    page: { offset: number; limit: number },
    ctx?: CallContext,
  ): Promise<AuditPage> {
    const organizationId = await this.membership.organizationId(ref, ctx);
    const access = organizationId ? await this.membership.readAccess(organizationId, callerId, ctx) : "not_member";
    if (!organizationId || access === "not_member") {
      throw new NotFoundError("No organization with this id or humanized id is visible to you.", "organization_not_found");
    }
    assertMayRead(access);
    return this.audit.page({ ...query, organizationId }, page);
  }

  /**
   * A document is known here by its entries (its organization is theirs): until its first event is consumed, and for a
   * document of an organization the caller is not in, the answer is 404, like one that does not exist.
   */
  async ofDocument(
    documentId: string,
    callerId: string,
    query: AuditQuery,
    page: { offset: number; limit: number },
    ctx?: CallContext,
  ): Promise<AuditPage> {
    const organizationId = isUuid(documentId) ? await this.audit.organizationOfDocument(documentId) : undefined;
    const access = organizationId ? await this.membership.readAccess(organizationId, callerId, ctx) : "not_member";
    if (!organizationId || access === "not_member") {
      throw new NotFoundError("No document with this id is visible to you.", "document_not_found");
    }
    assertMayRead(access);
    return this.audit.page({ ...query, documentId, organizationId }, page);
  }

  /** Deletes what is older than the retention period; returns how many entries went. */
  purgeExpired(now = new Date()): Promise<number> {
    return this.audit.purgeOlderThan(new Date(now.getTime() - this.retentionDays * DAY_MS));
  }
}

function assertMayRead(access: ReadAccess): void {
  if (access !== "allowed") throw new ForbiddenError("Only owners and supervisors read the audit log.");
}
