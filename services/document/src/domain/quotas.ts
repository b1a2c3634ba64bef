import type { Tx } from "@docex/kit/db";
import { ForbiddenError, NotFoundError, PayloadTooLargeError, RateLimitedError, ValidationError } from "@docex/kit/errors";
import { Counter, type Registry } from "prom-client";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import type { OrganizationUsage, QuotaOverrides, QuotaStore } from "../store/quota-store.js";
import type { Actor, MembershipDirectory } from "./access.js";
import { entityRefOf } from "./humanized-id.js";

export type QuotaName = "stored_bytes" | "uploads_per_minute" | "documents_per_month";

export interface QuotaLimits {
  storedBytes: number;
  uploadsPerMinute: number;
  documentsPerMonth: number;
}

export interface QuotaSettings {
  /** What an organization gets unless its owner chose otherwise. */
  defaults: QuotaLimits;
  /** The most an owner may choose (anyone with a mailbox can own an organization). */
  ceilings: QuotaLimits;
}

/** A quota as the API shows it. */
export interface QuotaView {
  limit: number;
  used: number;
  /** The configured value, and whether the organization's owner chose another. */
  default: number;
  overridden: boolean;
  /** The most an owner may set. */
  ceiling: number;
  /** When the count starts again; null for stored bytes (they go down as documents are deleted). */
  resetsAt: Date | null;
}

export interface OrganizationQuotas {
  organizationId: string;
  storedBytes: QuotaView;
  uploadsPerMinute: QuotaView;
  documentsPerMonth: QuotaView;
}

const SETTING: Record<QuotaName, string> = {
  stored_bytes: "DOCUMENT_QUOTA_STORED_BYTES",
  uploads_per_minute: "DOCUMENT_QUOTA_UPLOADS_PER_MINUTE",
  documents_per_month: "DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH",
};

function quotaExtra(quota: QuotaName, limit: number, used: number, resetsAt: Date | null) {
  return { quota, limit, used, resets_at: resetsAt ? resetsAt.toISOString() : null };
}

/** 429 for a rate quota (uploads per minute, documents per month): which one, and when it starts again. */
export class QuotaExceededError extends RateLimitedError {
  override readonly code = "quota_exceeded";
  override readonly extra: Record<string, unknown>;

  constructor(quota: "uploads_per_minute" | "documents_per_month", limit: number, used: number, now: Date, resetsAt: Date) {
    super(
      (resetsAt.getTime() - now.getTime()) / 1000,
      `The organization's quota ${quota} (${limit}) is used up; it starts again at ${resetsAt.toISOString()}. ` +
        `An owner may raise it (PATCH /organizations/{id}/quotas), up to ${SETTING[quota]}_MAX.`,
    );
    this.extra = quotaExtra(quota, limit, used, resetsAt);
  }
}

/** 413 for the stored bytes quota: the file does not fit in what the organization has left. */
export class StorageQuotaExceededError extends PayloadTooLargeError {
  override readonly code = "quota_exceeded";
  override readonly extra: Record<string, unknown>;

  constructor(limit: number, used: number, fileBytes: number) {
    super(
      `The organization stores ${used} of its ${limit} bytes (quota stored_bytes); a file of ${fileBytes} bytes does not fit. ` +
        "Deleting documents frees their files' bytes; an owner may raise the quota (PATCH /organizations/{id}/quotas).",
    );
    this.extra = quotaExtra("stored_bytes", limit, used, null);
  }
}

export interface QuotaChange {
  storedBytes?: number | null;
  uploadsPerMinute?: number | null;
  documentsPerMonth?: number | null;
}

/**
 * Quotas per organization: stored bytes (413), uploads per minute and documents per month (429). Checked once
 * before a streamed body is read (what the usage already rules out), and for good in the upload's transaction, with
 * the organization's usage row locked, where the upload is counted.
 */
export class Quotas {
  private readonly refusals: Counter<"quota">;

  constructor(
    private readonly deps: { store: QuotaStore; hierarchy: HierarchyStore; membership: MembershipDirectory },
    private readonly settings: QuotaSettings,
    registry: Registry,
  ) {
    this.refusals = new Counter({
      name: "document_quota_refusals_total",
      help: "Uploads refused because the organization's quota was used up, by quota",
      labelNames: ["quota"],
      registers: [registry],
    });
  }

  private limitsOf(overrides: QuotaOverrides): QuotaLimits {
    const { defaults } = this.settings;
    return {
      storedBytes: overrides.storedBytes ?? defaults.storedBytes,
      uploadsPerMinute: overrides.uploadsPerMinute ?? defaults.uploadsPerMinute,
      documentsPerMonth: overrides.documentsPerMonth ?? defaults.documentsPerMonth,
    };
  }

  private refuse(error: QuotaExceededError | StorageQuotaExceededError): never {
    this.refusals.inc({ quota: error.extra.quota as QuotaName });
    throw error;
  }

  private check(limits: QuotaLimits, usage: OrganizationUsage, fileBytes: number): void {
    if (usage.uploadsThisMinute >= limits.uploadsPerMinute)
      this.refuse(
        new QuotaExceededError("uploads_per_minute", limits.uploadsPerMinute, usage.uploadsThisMinute, usage.now, usage.nextMinute),
      );
    if (usage.documentsThisMonth >= limits.documentsPerMonth)
      this.refuse(
        new QuotaExceededError("documents_per_month", limits.documentsPerMonth, usage.documentsThisMonth, usage.now, usage.nextMonth),
      );
    if (usage.storedBytes + fileBytes > limits.storedBytes)
      this.refuse(new StorageQuotaExceededError(limits.storedBytes, usage.storedBytes, fileBytes));
  }

  /** Before a streamed body is read: refuses what the usage already rules out (`declaredBytes`: a Content-Length). */
  async precheck(organizationId: string, declaredBytes = 0): Promise<void> {
    const [overrides, usage] = await Promise.all([this.deps.store.overrides(organizationId), this.deps.store.usage(organizationId)]);
    this.check(this.limitsOf(overrides), usage, declaredBytes);
  }

  /** In the upload's transaction: the organization's usage locked, checked with the file's size, and the upload counted. */
  async charge(tx: Tx, organizationId: string, fileBytes: number): Promise<void> {
    // Every read here goes through `tx`. One beside it needs a second pool connection while the transaction holds
    // its own: a burst of uploads as large as the pool then holds every connection, each waiting for another, until
    // the pool's acquire timeout (503 database_unavailable).
    const overrides = await this.deps.store.overrides(organizationId, tx);
    const usage = await this.deps.store.lockedUsage(tx, organizationId);
    this.check(this.limitsOf(overrides), usage, fileBytes);
    await this.deps.store.countUpload(tx, organizationId, usage);
  }

  /** The organization a member may see (404 otherwise), with the caller's role. */
  private async organizationOf(actor: Actor, ref: string) {
    const notFound = () => new NotFoundError(`Organization ${ref} does not exist.`, "organization_not_found");
    let organization = await this.deps.hierarchy.findOrganization(entityRefOf(ref));
    if (!organization) {
      organization = await this.deps.membership.organization(ref, { requestId: actor.requestId });
      if (organization) await this.deps.hierarchy.rememberOrganization(organization);
    }
    if (!organization) throw notFound();
    const reach = await this.deps.membership.reachOf(actor.userId, organization.id, { requestId: actor.requestId });
    if (!reach) throw notFound();
    return { organizationId: organization.id, role: reach.role };
  }

  /** The organization's quotas, what it uses of them and when they reset; for any member. */
  async view(actor: Actor, organizationRef: string): Promise<OrganizationQuotas> {
    const { organizationId } = await this.organizationOf(actor, organizationRef);
    return this.viewOf(organizationId);
  }

  private async viewOf(organizationId: string): Promise<OrganizationQuotas> {
    const [overrides, usage] = await Promise.all([this.deps.store.overrides(organizationId), this.deps.store.usage(organizationId)]);
    const limits = this.limitsOf(overrides);
    const { defaults, ceilings } = this.settings;
    const quota = (key: keyof QuotaLimits, used: number, resetsAt: Date | null): QuotaView => ({
      limit: limits[key],
      used,
      default: defaults[key],
      overridden: overrides[key] !== null,
      ceiling: ceilings[key],
      resetsAt,
    });
    return {
      organizationId,
      storedBytes: quota("storedBytes", usage.storedBytes, null),
      uploadsPerMinute: quota("uploadsPerMinute", usage.uploadsThisMinute, usage.nextMinute),
      documentsPerMonth: quota("documentsPerMonth", usage.documentsThisMonth, usage.nextMonth),
    };
  }

  /** Owners set the organization's quotas, each up to its ceiling, or back to the default with null. */
  async update(actor: Actor, organizationRef: string, change: QuotaChange): Promise<OrganizationQuotas> {
    const { organizationId, role } = await this.organizationOf(actor, organizationRef);
    if (role !== "owner") throw new ForbiddenError("Only an owner of the organization may change its quotas.");
    const { ceilings } = this.settings;
    const fields: Array<[keyof QuotaLimits, QuotaName]> = [
      ["storedBytes", "stored_bytes"],
      ["uploadsPerMinute", "uploads_per_minute"],
      ["documentsPerMonth", "documents_per_month"],
    ];
    const errors = fields.flatMap(([key, name]) => {
      const value = change[key];
      return typeof value === "number" && value > ceilings[key]
        ? [{ path: name, message: `must be at most ${ceilings[key]} (${SETTING[name]}_MAX)` }]
        : [];
    });
    if (errors.length) throw new ValidationError("A quota is above what an owner may set.", errors);
    const current = await this.deps.store.overrides(organizationId);
    const next: QuotaOverrides = {
      storedBytes: change.storedBytes === undefined ? current.storedBytes : change.storedBytes,
      uploadsPerMinute: change.uploadsPerMinute === undefined ? current.uploadsPerMinute : change.uploadsPerMinute,
      documentsPerMonth: change.documentsPerMonth === undefined ? current.documentsPerMonth : change.documentsPerMonth,
    };
    await this.deps.store.setOverrides(organizationId, next, actor.userId);
    return this.viewOf(organizationId);
  }
}
