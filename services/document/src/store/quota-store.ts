import type { Sql, Tx } from "@docex/kit/db";

/** An owner's overrides of the configured quotas; null keeps the default. */
export interface QuotaOverrides {
  storedBytes: number | null;
  uploadsPerMinute: number | null;
  documentsPerMonth: number | null;
}

/** What an organization uses, by the database's clock, with the periods the counters belong to. */
export interface OrganizationUsage {
  storedBytes: number;
  uploadsThisMinute: number;
  documentsThisMonth: number;
  now: Date;
  minuteStart: Date;
  nextMinute: Date;
  monthStart: Date;
  nextMonth: Date;
}

interface UsageRow {
  stored_bytes: string;
  minute_uploads: number;
  month_documents: number;
  now: Date;
  minute: Date;
  next_minute: Date;
  month: Date;
  next_month: Date;
}

/** The periods by the database's clock (one clock for every replica); months are calendar months in UTC. */
const CLOCK = `
  SELECT now() AS now,
         date_trunc('minute', now()) AS minute,
         date_trunc('minute', now()) + interval '1 minute' AS next_minute,
         date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month,
         (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC' AS next_month`;

const USAGE_COLUMNS = `
  c.now, c.minute, c.next_minute, c.month, c.next_month,
  COALESCE(u.stored_bytes, 0) AS stored_bytes,
  CASE WHEN u.minute_start = c.minute THEN u.minute_uploads ELSE 0 END AS minute_uploads,
  CASE WHEN u.month_start = c.month THEN u.month_documents ELSE 0 END AS month_documents`;

function usageOf(row: UsageRow): OrganizationUsage {
  return {
    storedBytes: Number(row.stored_bytes),
    uploadsThisMinute: row.minute_uploads,
    documentsThisMonth: row.month_documents,
    now: row.now,
    minuteStart: row.minute,
    nextMinute: row.next_minute,
    monthStart: row.month,
    nextMonth: row.next_month,
  };
}

/** organization_usage (stored bytes kept by trigger, the upload counters by countUpload) and organization_quotas. */
export class QuotaStore {
  constructor(private readonly sql: Sql) {}

  /** In `tx` when given: a transaction holds its connection, so a read beside it would take a second one. */
  async overrides(organizationId: string, tx?: Tx): Promise<QuotaOverrides> {
    const row = await this.sql.one<{ stored_bytes: string | null; uploads_per_minute: number | null; documents_per_month: number | null }>(
      "SELECT stored_bytes, uploads_per_minute, documents_per_month FROM organization_quotas WHERE organization_id = $1",
      [organizationId],
      tx,
    );
    return {
      storedBytes: row?.stored_bytes == null ? null : Number(row.stored_bytes),
      uploadsPerMinute: row?.uploads_per_minute ?? null,
      documentsPerMonth: row?.documents_per_month ?? null,
    };
  }

  async setOverrides(organizationId: string, overrides: QuotaOverrides, userId: string): Promise<void> {
    await this.sql.run(
      `INSERT INTO organization_quotas (organization_id, stored_bytes, uploads_per_minute, documents_per_month, updated_by, updated_at)
         VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (organization_id) DO UPDATE SET stored_bytes = EXCLUDED.stored_bytes, uploads_per_minute = EXCLUDED.uploads_per_minute,
         documents_per_month = EXCLUDED.documents_per_month, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
      [organizationId, overrides.storedBytes, overrides.uploadsPerMinute, overrides.documentsPerMonth, userId],
    );
  }

  /** The organization's usage now, unlocked (a first look before an upload's body is read, or for the API). */
  async usage(organizationId: string): Promise<OrganizationUsage> {
    const row = await this.sql.one<UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM (${CLOCK}) c LEFT JOIN organization_usage u ON u.organization_id = $1`,
      [organizationId],
    );
    return usageOf(row!);
  }

  /** The usage, its row locked until `tx` ends: uploads of one organization are counted one after the other. */
  async lockedUsage(tx: Tx, organizationId: string): Promise<OrganizationUsage> {
    await this.sql.run("INSERT INTO organization_usage (organization_id) VALUES ($1) ON CONFLICT DO NOTHING", [organizationId], tx);
    const row = await this.sql.one<UsageRow>(
      `SELECT ${USAGE_COLUMNS} FROM organization_usage u, (${CLOCK}) c WHERE u.organization_id = $1 FOR UPDATE OF u`,
      [organizationId],
      tx,
    );
    return usageOf(row!);
  }

  /** One more accepted upload in the current minute and month (the stored bytes follow the document row by trigger). */
  async countUpload(tx: Tx, organizationId: string, usage: OrganizationUsage): Promise<void> {
    await this.sql.run(
      `UPDATE organization_usage SET
         minute_uploads = CASE WHEN minute_start = $2 THEN minute_uploads + 1 ELSE 1 END, minute_start = $2,
         month_documents = CASE WHEN month_start = $3 THEN month_documents + 1 ELSE 1 END, month_start = $3
       WHERE organization_id = $1`,
      [organizationId, usage.minuteStart, usage.monthStart],
      tx,
    );
  }
}
