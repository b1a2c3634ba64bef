import { pageQuery } from "@docex/kit/http";
import { httpUrl } from "@docex/kit/validation";
import { z } from "zod";
import { DELIVERY_STATUSES, ENTITY_TYPES, SIGNATURE_VERIFICATION, WEBHOOK_TYPES } from "../domain/records.js";

const uuid = z.guid({ message: "Must be a UUID." }).transform((id) => id.toLowerCase());

const signatureVerification = z.enum(SIGNATURE_VERIFICATION);

/** POST /webhooks; unknown fields are refused rather than ignored, so mistakes show. */
export const createWebhookBody = z.strictObject({
  url: httpUrl,
  entity_type: z.enum(ENTITY_TYPES),
  entity_id: uuid,
  type: z
    .enum(WEBHOOK_TYPES)
    .nullish()
    .transform((type) => type ?? "document_status_changed"),
  signature_verification: signatureVerification.nullish().transform((value) => value ?? "disabled"),
  destination_id: uuid.nullish().transform((id) => id ?? null),
});

/** PATCH /webhooks/{id}: what is absent stays; `signature_verification: null` goes back to the default (disabled). */
export const patchWebhookBody = z.strictObject({
  url: httpUrl.optional(),
  signature_verification: signatureVerification
    .nullable()
    .optional()
    .transform((value) => (value === null ? "disabled" : value)),
  destination_id: uuid.nullable().optional(),
});

/**
 * The four "webhooks of an entity" lists: the spec answers "data: array of webhook records", so without `page` and
 * `page_size` every webhook of the entity is returned; with either, API.md's pages (page from 1, size 1..100, default 20).
 */
export const entityListQuery = z.object({
  page: z.coerce.number().int().min(1).optional(),
  page_size: z.coerce.number().int().min(1).max(100).optional(),
});

/** `status` takes one status, several comma-separated, or the parameter repeated. */
export const deliveriesQuery = pageQuery.extend({
  status: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) =>
      value === undefined
        ? undefined
        : [value]
            .flat()
            .flatMap((part) => part.split(","))
            .filter(Boolean),
    )
    .pipe(z.array(z.enum(DELIVERY_STATUSES)).optional()),
});
