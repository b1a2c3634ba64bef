import { annotationSchema } from "@docex/annotations";
import { z } from "zod";
import { DOCUMENT_STATUSES } from "./document-statuses.js";

// Postgres stores any 8-4-4-4-12 hex string as a uuid, so an event must not be stricter than the tables it reports on.
export const uuidSchema = z.guid();

export const ROLES = ["owner", "supervisor", "admin", "editor", "approver", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const UI_LOCALES = ["cs_CZ", "en_GB", "cs", "en"] as const;
export type UiLocale = (typeof UI_LOCALES)[number];

export const MAIL_TEMPLATES = ["magic_link", "password_reset", "onboarding_pin", "invitation"] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

const role = z.enum(ROLES);
const documentStatus = z.enum(DOCUMENT_STATUSES);
const confidence = z.number().min(0).max(100);
const version = z.number().int().nonnegative();
const visibility = z.enum(["visible", "hidden"]);

export const userOnboardedData = z.object({
  user_id: uuidSchema,
  email: z.email(),
  company: z.string().nullable(),
  vat_id: z.string().nullable(),
  register_id: z.string().nullable(),
  erp: z.string().nullable(),
  invoice_count: z.number().nonnegative().nullable(),
  ui_locale: z.enum(UI_LOCALES),
});

// Strict: a token, PIN or link added by mistake is rejected instead of travelling through the stream.
export const mailRequestedData = z.strictObject({
  recipient: z.email(),
  template: z.enum(MAIL_TEMPLATES),
  locale: z.string().min(1),
  user_id: uuidSchema.optional(),
});

export const membershipChangedData = z.object({
  organization_id: uuidSchema,
  user_id: uuidSchema,
  /** Null once the membership is removed. */
  role: role.nullable(),
  /** Null when the membership is new. */
  previous_role: role.nullable(),
  /** Null means every queue of the organization. */
  queue_ids: z.array(uuidSchema).nullable(),
  status: z.enum(["active", "invited", "deactivated", "removed"]),
});

export const organizationCreatedData = z.object({
  organization_id: uuidSchema,
  humanized_id: z.string().min(1),
  name: z.string().min(1),
  owner_user_id: uuidSchema,
});

export const queueCreatedData = z.object({
  workspace_id: uuidSchema,
  queue_id: uuidSchema,
  organization_id: uuidSchema,
});

/** A queue removed with everything of it (DELETE /queues/{id}, or its workspace's deletion): every service forgets it. */
export const queueDeletedData = queueCreatedData;

/** Documents purged per batch of the lifetime sweep (one `documents.purged` each): what a consumer deletes at once. */
export const MAX_PURGED_DOCUMENTS = 500;

/**
 * Documents of a queue older than its `document_lifetime_days`, purged with their files, annotations and changes:
 * every service deletes what it keeps of them, and the audit log keeps their entries without values.
 */
export const documentsPurgedData = z.object({
  organization_id: uuidSchema,
  workspace_id: uuidSchema,
  queue_id: uuidSchema,
  document_ids: z.array(uuidSchema).min(1).max(MAX_PURGED_DOCUMENTS),
});

/** A workspace removed; `queue.deleted` of each of its queues comes with it. */
export const workspaceDeletedData = z.object({
  workspace_id: uuidSchema,
  organization_id: uuidSchema,
});

export const documentExtractedData = z.object({
  document_id: uuidSchema,
  queue_id: uuidSchema,
  workspace_id: uuidSchema,
  organization_id: uuidSchema,
  annotations: z.array(annotationSchema),
  confidence: confidence.nullable(),
  version,
});

export const documentAnnotationsChangedData = z.object({
  document_id: uuidSchema,
  queue_id: uuidSchema,
  workspace_id: uuidSchema,
  /** Null when a service (automation, learning, validation) made the change. */
  user_id: uuidSchema.nullable(),
  previous_annotations: z.array(annotationSchema),
  annotations: z.array(annotationSchema),
  version,
});

export const documentStatusChangedData = z.object({
  document_id: uuidSchema,
  queue_id: uuidSchema,
  workspace_id: uuidSchema,
  status: documentStatus,
  previous_status: documentStatus,
  user_id: uuidSchema.nullable(),
});

/** One approver's approval of a document's current approval stage. */
export const documentApprovedData = z.object({
  document_id: uuidSchema,
  queue_id: uuidSchema,
  workspace_id: uuidSchema,
  user_id: uuidSchema,
  /** The stage approved, counted from 1, and how many the route has. */
  stage: z.number().int().min(1),
  stages: z.number().int().min(1),
  /** Approvals of this stage so far, this one included, and how many complete it. */
  approvals: z.number().int().min(1),
  min_approvals: z.number().int().min(1),
  /** True when this approval completed the stage (the next one begins, or after the last the document is ready). */
  stage_completed: z.boolean(),
});

export const automationAppliedData = z.object({
  document_id: uuidSchema,
  queue_id: uuidSchema,
  applied_rules: z.array(uuidSchema),
  /** The status automation moved the document to; null when it left the status alone. */
  status: documentStatus.nullable(),
});

/** Identified by tax_id, else register_id, else name. */
export const supplierSchema = z.object({
  tax_id: z.string().nullable(),
  register_id: z.string().nullable(),
  name: z.string().nullable(),
});

const learningFeedbackCommon = {
  queue_id: uuidSchema,
  /** Null for POST /queues/{queue_id}/relearn. */
  document_id: uuidSchema.nullable(),
  supplier: supplierSchema,
};

export const learningFeedbackData = z.discriminatedUnion("kind", [
  z.object({
    ...learningFeedbackCommon,
    kind: z.literal("learn"),
    payload: z.object({
      /** The annotation set of the learn request, as sent (snake_case value objects). */
      annotations: z.record(z.string(), z.array(z.unknown())),
      line_items_visibility: visibility.nullable(),
      tax_detail_visibility: visibility.nullable(),
    }),
  }),
  z.object({
    ...learningFeedbackCommon,
    kind: z.literal("relearn"),
    payload: z.object({
      field_key: z.string().min(1),
      /** Null tells the queue to forget the field for this supplier. */
      value: z.string().nullable(),
    }),
  }),
]);

export const LOGIN_METHODS = ["pwd", "magic", "social", "invite"] as const;

/**
 * Every login, successful or not. The email is the one the client sent (possibly of no user), never a password,
 * code or token.
 */
export const loginAttemptedData = z.strictObject({
  /** Null when no user has the email. */
  user_id: uuidSchema.nullable(),
  email: z.string().max(320),
  method: z.enum(LOGIN_METHODS),
  succeeded: z.boolean(),
  /** Why it failed, e.g. "invalid_credentials", "totp_required"; null on success. */
  failure: z.string().min(1).nullable(),
});

export const documentCreatedData = z.object({
  document_id: uuidSchema,
  queue_id: uuidSchema,
  workspace_id: uuidSchema,
  organization_id: uuidSchema,
  file_name: z.string().nullable(),
  /** Hex SHA-256 of the uploaded file; null when no file was uploaded. */
  file_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /**
   * The kept file's media type, sniffed from its bytes (e.g. "application/pdf"); null without a file. Absent in events
   * written before files were kept.
   */
  content_type: z.string().min(1).nullable().optional(),
  /** The kept file's size in bytes; null without a file. */
  file_size: z.number().int().min(0).nullable().optional(),
  /** True when document keeps the file: its bytes can be read (gRPC ReadDocumentFile, GET /documents/{id}/file). */
  has_file: z.boolean().optional(),
  /** How the document came in: an upload through the API, or an attachment of a mail to the queue's inbox. Absent before issue 38. */
  channel: z.enum(["api", "email"]).optional(),
});

/** What a configuration change was about; the audit log's `type` filter uses these names. */
export const CONFIGURATION_RESOURCES = [
  "organization",
  "workspace",
  "queue",
  "accounting_automation",
  "accounting_automation_rule",
  "approval_automation_rule",
  "automation_rules",
  "extraction_evaluation",
  "webhook",
  "validation_link",
  "export",
  "signing_key",
  "user_schema",
] as const;
export type ConfigurationResource = (typeof CONFIGURATION_RESOURCES)[number];

export const CONFIGURATION_CHANGES = ["created", "updated", "deleted", "reordered", "rotated", "disabled", "enabled"] as const;

/**
 * A change of configuration by a user (or by the system, e.g. a webhook disabled after failing for days), with the
 * state before and after. Publishers must leave secrets out of `previous` and `current` (a signing key is named by
 * its id, never its value).
 */
export const configurationChangedData = z.object({
  resource: z.enum(CONFIGURATION_RESOURCES),
  /** The id of the changed thing (rule, webhook, key, link type); null for a queue-wide setting. */
  resource_id: z.string().min(1).nullable(),
  /** The queue the setting belongs to, if it belongs to one. */
  queue_id: uuidSchema.nullable(),
  change: z.enum(CONFIGURATION_CHANGES),
  previous: z.unknown().nullable(),
  current: z.unknown().nullable(),
});

export const registerUpdatedData = z.object({
  register_id: uuidSchema,
  queue_id: uuidSchema,
  name: z.string().min(1),
  method: z.enum(["replace", "append", "upsert"]),
  item_count: z.number().int().nonnegative(),
});

/**
 * A person erased themselves (DELETE /auth/me): their account's name and email are placeholders now and it can no
 * longer sign in. Every service that holds something of the person erases it in every organization.
 */
export const userPersonalDataErasedData = z.object({
  user_id: uuidSchema,
});

/**
 * An owner erased what their organization holds of a member (DELETE /organizations/{id}/members/{user_id}/personal-data):
 * the membership is deactivated and its email and name erased, and the organization's audit entries of the person
 * keep their shape without values. `account_erased`: the person belonged to no other organization, so their account
 * is erased as well (auth consumes this) and every organization's data of them goes with it.
 */
export const memberPersonalDataErasedData = z.object({
  organization_id: uuidSchema,
  user_id: uuidSchema,
  account_erased: z.boolean(),
});
