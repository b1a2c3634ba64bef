import { API_PREFIX, type HttpMethod, type RouteDefinition } from "./routes.js";

export type RouteMatch =
  | { kind: "found"; route: RouteDefinition; template: string }
  | { kind: "method_not_allowed"; template: string; allow: string[] }
  | { kind: "not_found" };

interface CompiledTemplate {
  /** `/api/v2/queues/{queue_id}`: the label of metrics and logs. */
  template: string;
  /** Static segments as text, parameters as null. */
  segments: (string | null)[];
  methods: Map<string, RouteDefinition>;
  allow: string[];
}

const PARAMETER = /^\{[a-z_]+\}$/;

/**
 * Resolves a request path to its route template and the definition for the method.
 * Where two templates match (`.../order` and `.../{automation_rule_id}`), the one with a
 * static segment at the first position where they differ wins, whatever the method: a
 * `PATCH .../order` is a wrong method on the order resource, not a rule called "order".
 */
export class RouteMatcher {
  private readonly bySegmentCount = new Map<number, CompiledTemplate[]>();

  constructor(routes: readonly RouteDefinition[]) {
    const byTemplate = new Map<string, CompiledTemplate>();
    for (const route of routes) {
      const template = `${API_PREFIX}${route.path}`;
      let compiled = byTemplate.get(template);
      if (!compiled) {
        const segments = route.path
          .split("/")
          .slice(1)
          .map((segment) => (PARAMETER.test(segment) ? null : segment));
        compiled = { template, segments, methods: new Map(), allow: [] };
        byTemplate.set(template, compiled);
      }
      if (compiled.methods.has(route.method)) throw new Error(`Route ${route.method} ${template} is listed twice.`);
      compiled.methods.set(route.method, route);
      compiled.allow.push(route.method);
    }
    for (const compiled of byTemplate.values()) {
      const bucket = this.bySegmentCount.get(compiled.segments.length) ?? [];
      bucket.push(compiled);
      this.bySegmentCount.set(compiled.segments.length, bucket);
    }
    for (const bucket of this.bySegmentCount.values()) bucket.sort(bySpecificity);
  }

  match(method: string, path: string): RouteMatch {
    const segments = segmentsUnderPrefix(path);
    if (!segments) return { kind: "not_found" };
    const compiled = this.bySegmentCount.get(segments.length)?.find((candidate) => matches(candidate.segments, segments));
    if (!compiled) return { kind: "not_found" };
    const route = compiled.methods.get(method === "HEAD" ? "GET" : method);
    if (!route) return { kind: "method_not_allowed", template: compiled.template, allow: allowHeaderOf(compiled.allow) };
    return { kind: "found", route, template: compiled.template };
  }

  /** Every template with its methods, for documentation and tests. */
  templates(): { template: string; methods: HttpMethod[] }[] {
    return [...this.bySegmentCount.values()].flat().map((compiled) => ({
      template: compiled.template,
      methods: compiled.allow as HttpMethod[],
    }));
  }
}

/**
 * The segments after `/api/v2`, or undefined for a path outside it or one that is not in
 * canonical form (empty, `.` or `..` segments): such a path could mean something else to
 * the service than to the table, so it matches nothing.
 */
function segmentsUnderPrefix(path: string): string[] | undefined {
  if (!path.startsWith(`${API_PREFIX}/`)) return undefined;
  const rest = path.endsWith("/") ? path.slice(API_PREFIX.length + 1, -1) : path.slice(API_PREFIX.length + 1);
  const segments = rest.split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") return undefined;
  }
  return segments;
}

function matches(template: (string | null)[], segments: string[]): boolean {
  for (let index = 0; index < template.length; index++) {
    const expected = template[index];
    if (expected !== null && expected !== segments[index]) return false;
  }
  return true;
}

function bySpecificity(a: CompiledTemplate, b: CompiledTemplate): number {
  for (let index = 0; index < a.segments.length; index++) {
    const aStatic = a.segments[index] !== null;
    const bStatic = b.segments[index] !== null;
    if (aStatic !== bStatic) return aStatic ? -1 : 1;
  }
  return 0;
}

function allowHeaderOf(methods: string[]): string[] {
  return methods.includes("GET") ? [...methods, "HEAD"] : [...methods];
}
