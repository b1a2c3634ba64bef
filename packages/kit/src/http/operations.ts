import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import { z } from "zod";
import { type FieldError, MethodNotAllowedError, ValidationError } from "../errors.js";
import { fieldErrorsOf, parseInput } from "../validation.js";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  /** The JSON body; omitted for 204 and for answers without a body. */
  schema?: z.ZodType;
  /** Headers the answer carries, by name, with their meaning. */
  headers?: Record<string, string>;
  /** Media types of a binary answer (a file), instead of a JSON schema. */
  binary?: string[];
}

/** One operation of the public API: the single source of its route, its input parsing and its OpenAPI entry. */
export interface OperationSpec<Body extends z.ZodType = z.ZodType, Query extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** OpenAPI form, e.g. `/api/v2/queues/{queue_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Callable without a bearer token. */
  public?: boolean;
  deprecated?: boolean;
  /** Describes each path parameter. */
  params?: Record<string, string>;
  query?: Query;
  body?: Body;
  /**
   * Other forms the body may take besides JSON, for the OpenAPI document only (the route reads them itself), e.g.
   * `multipart/form-data` with its schema, or a media type of a raw file body with a binary schema.
   */
  otherBodies?: Record<string, Record<string, unknown>>;
  responses: Record<number, ResponseSpec>;
  /** Problem statuses this operation answers with, besides 401 (non-public) and 400 (with a body or query). */
  problems?: number[];
}

export interface OperationInput<Body extends z.ZodType, Query extends z.ZodType> {
  body: z.output<Body>;
  query: z.output<Query>;
  params: Record<string, string>;
}

export type OperationHandler<Body extends z.ZodType, Query extends z.ZodType> = (
  input: OperationInput<Body, Query>,
  req: Request,
  res: Response,
) => Promise<void> | void;

const PROBLEM_TITLES: Record<number, string> = {
  400: "The body, query or a path parameter is invalid; `errors` lists each bad field.",
  401: "No access token, or one that is invalid or expired.",
  403: "The caller's role does not allow this.",
  404: "No such resource in the caller's organizations.",
  405: "The path does not accept this method.",
  409: "The resource's state does not allow this.",
  413: "The body is larger than this endpoint accepts.",
  415: "The body is not JSON.",
  422: "The request is understood, but the resource cannot be made (e.g. a file's page that cannot be read).",
  429: "Too many requests; `Retry-After` says when to try again.",
  502: "A service this operation depends on failed.",
  503: "A service this operation depends on is unavailable.",
  504: "A service this operation depends on did not answer in time.",
};

/** The names of the parameters a query schema declares (its JSON Schema's properties). */
function queryParameterNames(schema: z.ZodType): Set<string> {
  const described = jsonSchema(schema, "input") as { properties?: Record<string, unknown> };
  return new Set(Object.keys(described.properties ?? {}));
}

/**
 * Parses a query with its schema. A parameter the schema does not declare is a 400 naming it, never dropped: a
 * client that misspells a filter (`?statuses=`) or sends one this route does not have (`?q=` where there is no
 * search) would otherwise get everything and believe it was filtered. Bad values of declared parameters are listed
 * in the same answer.
 */
function parseQuery<S extends z.ZodType>(schema: S, known: Set<string>, query: Record<string, unknown>): z.output<S> {
  const unknown: FieldError[] = Object.keys(query)
    .filter((name) => !known.has(name))
    .map((name) => ({
      path: name,
      message: known.size
        ? `is not a parameter of this operation (it takes ${[...known].sort().join(", ")})`
        : "is not a parameter of this operation (it takes none)",
    }));
  const declared = Object.fromEntries(Object.entries(query).filter(([name]) => known.has(name)));
  const result = schema.safeParse(declared);
  if (unknown.length === 0 && result.success) return result.data;
  const errors = [...unknown, ...(result.success ? [] : fieldErrorsOf(result.error))];
  const detail = unknown.length
    ? `Unknown query parameter${unknown.length > 1 ? "s" : ""}: ${unknown.map((error) => error.path).join(", ")}.`
    : "The query is invalid.";
  throw new ValidationError(detail, errors);
}

/** The express form of an OpenAPI path: `{queue_id}` → `:queue_id`. */
export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/**
 * The operations a service serves. `route` mounts an operation and parses its input with the
 * same schemas that `openApi` publishes, so the documentation cannot drift from the code.
 */
export class ApiDescription {
  readonly operations: OperationSpec[] = [];
  private document: { paths: Record<string, Record<string, unknown>> } | undefined;

  constructor(readonly service: string) {}

  route<Body extends z.ZodType = z.ZodUndefined, Query extends z.ZodType = z.ZodUndefined>(
    router: Router,
    spec: OperationSpec<Body, Query>,
    ...handlers: [...RequestHandler[], OperationHandler<Body, Query>]
  ): void {
    this.operations.push(spec as unknown as OperationSpec);
    this.document = undefined;
    const handler = handlers.pop() as OperationHandler<Body, Query>;
    const middlewares = handlers as RequestHandler[];
    const knownParameters = spec.query ? queryParameterNames(spec.query) : undefined;
    router[spec.method](expressPath(spec.path), ...middlewares, async (req: Request, res: Response, next: NextFunction) => {
      try {
        const input = {
          body: spec.body ? parseInput(spec.body, req.body) : undefined,
          query: spec.query && knownParameters ? parseQuery(spec.query, knownParameters, req.query) : undefined,
          params: Object.fromEntries(Object.entries(req.params).map(([key, value]) => [key, String(value)])),
        } as OperationInput<Body, Query>;
        await handler(input, req, res);
      } catch (error) {
        next(error);
      }
    });
  }

  /**
   * Answers 405, with `Allow`, on every path of the operations routed so far for the methods none of them serves.
   * Mounted after the routes.
   */
  refuseOtherMethods(router: Router): void {
    const allowedByPath = new Map<string, string[]>();
    for (const { path, method } of this.operations) allowedByPath.set(path, [...(allowedByPath.get(path) ?? []), method.toUpperCase()]);
    for (const [path, allowed] of allowedByPath) {
      router.all(expressPath(path), (_req, res) => {
        res.setHeader("allow", allowed.join(", "));
        throw new MethodNotAllowedError(allowed);
      });
    }
  }

  /** This service's part of the OpenAPI 3.1 document: `paths`, tagged and with its schemas inline. */
  openApi(): { paths: Record<string, Record<string, unknown>> } {
    this.document ??= this.describe();
    return this.document;
  }

  private describe(): { paths: Record<string, Record<string, unknown>> } {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const spec of this.operations) {
      const parameters: unknown[] = [];
      for (const name of spec.path.match(/\{([A-Za-z0-9_]+)\}/g) ?? []) {
        const key = name.slice(1, -1);
        parameters.push({ name: key, in: "path", required: true, schema: { type: "string" }, description: spec.params?.[key] ?? "" });
      }
      if (spec.query) {
        const query = jsonSchema(spec.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
        for (const [name, schema] of Object.entries(query.properties ?? {})) {
          parameters.push({ name, in: "query", required: query.required?.includes(name) ?? false, schema });
        }
      }
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(spec.responses)) {
        responses[status] = {
          description: response.description,
          ...(response.schema ? { content: { "application/json": { schema: jsonSchema(response.schema, "output") } } } : {}),
          ...(response.binary
            ? { content: Object.fromEntries(response.binary.map((type) => [type, { schema: { type: "string", format: "binary" } }])) }
            : {}),
          ...(response.headers
            ? {
                headers: Object.fromEntries(
                  Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]),
                ),
              }
            : {}),
        };
      }
      const problems = new Set(spec.problems ?? []);
      if (!spec.public) problems.add(401);
      if (spec.body || spec.query || parameters.length) problems.add(400);
      if (spec.body) problems.add(413).add(415);
      for (const status of [...problems].sort()) {
        responses[String(status)] = {
          description: PROBLEM_TITLES[status] ?? "A problem.",
          ...(status === 429
            ? { headers: { "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } } } }
            : {}),
          content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
        };
      }
      paths[spec.path] ??= {};
      paths[spec.path]![spec.method] = {
        operationId: spec.operationId,
        summary: spec.summary,
        ...(spec.description ? { description: spec.description } : {}),
        tags: spec.tags,
        ...(spec.deprecated ? { deprecated: true } : {}),
        ...(spec.public ? { security: [] } : {}),
        ...(parameters.length ? { parameters } : {}),
        ...(spec.body
          ? {
              requestBody: {
                required: true,
                content: {
                  "application/json": { schema: jsonSchema(spec.body, "input") },
                  ...Object.fromEntries(Object.entries(spec.otherBodies ?? {}).map(([type, schema]) => [type, { schema }])),
                },
              },
            }
          : {}),
        responses,
      };
    }
    return { paths };
  }
}

/** The schema of every error answer (API.md "Conventions"). */
export const problemSchema = z.object({
  type: z.string().describe("`/problems/<code>`"),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
  request_id: z.string(),
});

/** `{data}` around a record, as every answer with data is shaped. */
export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

export const paginationSchema = z.object({
  page: z.number().int().min(1),
  page_size: z.number().int().min(1).max(100),
  total: z.number().int().min(0),
  total_pages: z.number().int().min(0),
});

/** `{data: [...], pagination}` of a list. */
export function pageOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: z.array(schema), pagination: paginationSchema });
}

/** `METHOD /path` of every route mounted on an Express app or router, in OpenAPI path form. */
export function mountedRoutes(app: { router?: unknown; stack?: unknown }): string[] {
  const routes: string[] = [];
  const visit = (stack: unknown[]) => {
    for (const layer of stack as Array<{ route?: { path: unknown; methods: Record<string, boolean> }; handle?: { stack?: unknown[] } }>) {
      if (layer.route && typeof layer.route.path === "string") {
        const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
        // router.all() shows as `_ALL /path` (a catch-all such as a 405 answer, not an operation).
        for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) {
        visit(layer.handle.stack);
      }
    }
  };
  const root = (app.router as { stack?: unknown[] } | undefined)?.stack ?? (app.stack as unknown[] | undefined) ?? [];
  visit(root);
  return routes;
}

/** `METHOD /path` of every operation of a description. */
export function describedRoutes(api: ApiDescription): string[] {
  return api.operations.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`);
}
