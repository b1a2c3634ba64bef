import { milliseconds, serviceConfigSchema } from "@docex/kit/config";
import { z } from "zod";

export const configSchema = serviceConfigSchema("document").extend({
  /** Deadline of a CheckPermission / GetUserSchema / ListOrganizationsOfUser call. */
  DOCUMENT_MEMBERSHIP_DEADLINE_MS: milliseconds(1_000),
  /** How long a permission answer is reused; membership.changed evicts it sooner. 0 asks every time. */
  DOCUMENT_PERMISSION_CACHE_MS: milliseconds(30_000),
  /** How long a user's annotation schema (hidden / readonly fields) is reused. 0 asks every time. */
  DOCUMENT_USER_SCHEMA_CACHE_MS: milliseconds(2_000),
  /** Deadline of GetQueueAutomation, asked once per queue that predates the switch projection (at start, never on a read). */
  DOCUMENT_AUTOMATION_DEADLINE_MS: milliseconds(250),
  /**
   * Budget of one document_validation call (API.md): what the webhook service may spend on the receiver while a
   * user's PATCH waits. The gRPC deadline of Validate is a little longer (the hop and the webhook's lookups).
   */
  DOCUMENT_VALIDATION_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(200),
  /** Budget of one initial_document_validation call (API.md); it runs after extraction, nobody waits on it. */
  INITIAL_VALIDATION_TIMEOUT_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
  /** The domain of queues' inbox addresses (`<humanized_id>.<token>@<INTAKE_MAIL_DOMAIN>`); the intake's domain. */
  INTAKE_MAIL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, "must be a lowercase domain name")
    .default("docex.test"),
  /** The largest file an upload may carry; larger answers 413. */
  DOCUMENT_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024 ** 3)
    .default(25 * 1024 * 1024),
  /** Where kept files live: empty for the document database (Postgres), or `s3://bucket/prefix` (AWS_* variables apply). */
  FILE_STORE_URL: z
    .string()
    .regex(/^(s3:\/\/[^/]+(\/.*)?)?$/, "must be empty or s3://bucket/prefix")
    .default(""),
  /** The S3 store's region and endpoint (any S3-compatible server), read by the AWS SDK; unset: us-east-1 and AWS's own. */
  AWS_REGION: z.string().min(1).optional(),
  /** The S3-compatible server's endpoint, read by the AWS SDK; unset: AWS's own. */
  AWS_ENDPOINT_URL_S3: z.url().optional(),
  /** The S3 store's key (a secret); unset, the SDK's other sources apply: a workload identity (IRSA, EKS Pod Identity). */
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** The secret of AWS_ACCESS_KEY_ID (a secret). */
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /**
   * Streamed uploads (multipart or raw) this process reads at once; one more is 429 before a byte of it is read. Sized
   * with the spool volume: a store that needs a file's length (S3) counts each such upload in a temporary file of up to
   * DOCUMENT_MAX_FILE_BYTES (deploy/k8s: the /tmp emptyDir holds this many files).
   */
  DOCUMENT_MAX_CONCURRENT_UPLOADS: z.coerce.number().int().min(1).max(1_000).default(4),
  /** Streamed uploads of one organization this process reads at once: one organization cannot take every slot. */
  DOCUMENT_MAX_CONCURRENT_UPLOADS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1_000).default(2),
  /** The `Retry-After` of an upload refused for either bound above. */
  DOCUMENT_UPLOAD_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).max(3_600).default(5),
  /** Where an upload's bytes are counted when the store needs their length first; empty: the system's temporary directory. */
  DOCUMENT_UPLOAD_SPOOL_DIR: z.string().default(""),
  /** Bytes of files an organization may keep (of documents not deleted); an upload past it is 413 quota_exceeded. */
  DOCUMENT_QUOTA_STORED_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 ** 3),
  /** The most an owner may set the organization's stored bytes quota to (PATCH /organizations/{id}/quotas). */
  DOCUMENT_QUOTA_STORED_BYTES_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .default(100 * 1024 ** 3),
  /** Uploads an organization may make per minute (a calendar minute); past it 429 quota_exceeded. */
  DOCUMENT_QUOTA_UPLOADS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .default(600),
  /** The most an owner may set the uploads per minute quota to. */
  DOCUMENT_QUOTA_UPLOADS_PER_MINUTE_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .default(6_000),
  /** Documents an organization may add per calendar month (UTC); past it 429 quota_exceeded. */
  DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .default(50_000),
  /** The most an owner may set the documents per month quota to. */
  DOCUMENT_QUOTA_DOCUMENTS_PER_MONTH_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .default(500_000),
  /** Days a deleted document's file is kept before the sweep purges it (fractions allowed, e.g. for tests). */
  DOCUMENT_FILE_RETENTION_DAYS: z.coerce.number().min(0).max(36_500).default(30),
  /** How often the retention sweep runs. */
  DOCUMENT_FILE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  /** How often the lifetime sweep purges documents older than their queue's `document_lifetime_days`. */
  DOCUMENT_LIFETIME_SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
});

export type DocumentConfig = z.infer<typeof configSchema>;
