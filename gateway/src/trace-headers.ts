import type { ClientRequest } from "node:http";

/** W3C Trace Context's limits for `tracestate`: list members, and characters of the whole header. */
export const TRACESTATE_MAX_MEMBERS = 32;
export const TRACESTATE_MAX_LENGTH = 512;

/** A `tracestate` list member as W3C Trace Context defines it: a simple or multi-tenant key, `=`, a value. */
const LIST_MEMBER =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The client's `tracestate` within W3C's limits: its valid members in their order, at most 32, as many as fit in
 * 512 characters (a member that would not fit is left out, as OpenTelemetry does). Undefined when none is left.
 */
export function cappedTraceState(header: string | string[] | number | undefined): string | undefined {
  if (header === undefined) return undefined;
  const members: string[] = [];
  let length = 0;
  for (const raw of String(header).split(",")) {
    const member = raw.trim();
    if (!LIST_MEMBER.test(member)) continue;
    const after = length + member.length + (members.length > 0 ? 1 : 0);
    if (after > TRACESTATE_MAX_LENGTH) continue;
    members.push(member);
    length = after;
    if (members.length === TRACESTATE_MAX_MEMBERS) break;
  }
  return members.length > 0 ? members.join(",") : undefined;
}

/**
 * What of the client's trace context goes on to a service: `baggage` never (it would ride along every call,
 * event and webhook of the request, and services act on none of it); `tracestate` within W3C's limits.
 */
export function passTraceContext(proxyReq: ClientRequest): void {
  proxyReq.removeHeader("baggage");
  const capped = cappedTraceState(proxyReq.getHeader("tracestate"));
  if (capped === undefined) proxyReq.removeHeader("tracestate");
  else proxyReq.setHeader("tracestate", capped);
}
