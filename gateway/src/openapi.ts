import {
  documentStatusChangedPayloadSchema,
  queueCreatedPayloadSchema,
  validationAnswerSchema,
  validationRequestPayloadSchema,
} from "@docex/events";
import type { ServiceName } from "@docex/kit/config";
import { problemSchema } from "@docex/kit/http";
import type { Logger } from "@docex/kit/logger";
import { z } from "zod";
import type { UpstreamPool } from "./upstream-pool.js";

type Paths = Record<string, Record<string, unknown>>;

const CACHE_MS = 30_000;

const schemaOf = (schema: z.ZodType, io: "input" | "output" = "output") => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

const signatureHeader = {
  "x-service-signature": {
    description: "Lowercase hex HMAC-SHA256 of the raw body, keyed with the organization's signing key; present when signing is on.",
    schema: { type: "string", pattern: "^[0-9a-f]{64}$" },
  },
};

/** An outgoing call of docex to an integrator, as an OpenAPI `webhooks` entry. */
function webhook(summary: string, body: z.ZodType, answer?: z.ZodType): Record<string, unknown> {
  return {
    post: {
      summary,
      parameters: Object.entries(signatureHeader).map(([name, header]) => ({ name, in: "header", required: false, ...header })),
      requestBody: { required: true, content: { "application/json": { schema: schemaOf(body) } } },
      responses: answer
        ? {
            "200": {
              description:
                "The validation answer; with signing on it must carry `x-service-signature` over its raw body, else it is rejected.",
              headers: signatureHeader,
              content: { "application/json": { schema: schemaOf(answer, "input") } },
            },
          }
        : { "2XX": { description: "Received. Anything else, or no answer within 10 s, is retried on the schedule." } },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the whole public API: each service's operations (served by the
 * service at `/openapi.json` from the same zod schemas it validates with), merged, with the
 * problem schema, the bearer scheme and the integrators' webhooks. Cached briefly; a service
 * that does not answer is named in `x-docex-missing` rather than failing the whole document.
 */
export class OpenApiAggregator {
  private cached: { at: number; document: Record<string, unknown> } | undefined;

  constructor(
    private readonly upstreams: UpstreamPool,
    private readonly logger: Logger,
    private readonly fetchTimeoutMs = 3_000,
  ) {}

  async document(): Promise<Record<string, unknown>> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.document;
    const parts = await Promise.all(
      this.upstreams.all().map(async (upstream) => ({ service: upstream.service, part: await this.fetchPart(upstream.url) })),
    );
    const paths: Paths = {};
    const missing: ServiceName[] = [];
    for (const { service, part } of parts) {
      if (!part) {
        missing.push(service);
        continue;
      }
      for (const [path, operations] of Object.entries(part.paths)) paths[path] = { ...paths[path], ...operations };
    }
    const document = {
      openapi: "3.1.0",
      info: {
        title: "docex — Document Extraction Service API",
        version: "2.0.0",
        description:
          "AI-assisted extraction of data from invoices and other documents. Every path is under /api/v2. Errors are RFC 9457 problem+json.",
      },
      servers: [{ url: "/" }],
      security: [{ bearerAuth: [] }],
      tags: [
        ...new Set(
          Object.values(paths).flatMap((operations) => Object.values(operations).flatMap((op) => (op as { tags?: string[] }).tags ?? [])),
        ),
      ]
        .sort()
        .map((name) => ({ name })),
      paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
      webhooks: {
        document_status_changed: webhook("A document's status changed", documentStatusChangedPayloadSchema),
        queue_created: webhook("A queue was created", queueCreatedPayloadSchema),
        initial_document_validation: webhook(
          "Validate a freshly extracted document (seconds allowed)",
          validationRequestPayloadSchema,
          validationAnswerSchema,
        ),
        document_validation: webhook("Validate an edit (answer within ~200 ms)", validationRequestPayloadSchema, validationAnswerSchema),
      },
      components: {
        securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
        schemas: { Problem: schemaOf(problemSchema) },
      },
      ...(missing.length ? { "x-docex-missing": missing } : {}),
    };
    if (!missing.length) this.cached = { at: Date.now(), document };
    return document;
  }

  private async fetchPart(url: string): Promise<{ paths: Paths } | undefined> {
    try {
      const response = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(this.fetchTimeoutMs) });
      if (!response.ok) return undefined;
      const part = (await response.json()) as { paths?: Paths };
      return part.paths ? { paths: part.paths } : undefined;
    } catch (error) {
      this.logger.warn({ err: error, url }, "a service's OpenAPI part is unavailable");
      return undefined;
    }
  }
}
