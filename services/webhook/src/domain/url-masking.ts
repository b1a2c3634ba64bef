/**
 * What readers below supervisor see of a webhook or validation link URL (integrators put tokens in them): the
 * scheme, host and port, and the path with every token-like segment replaced by `***`; the query, the fragment and
 * any user or password are left out. A path segment is token-like when it is 8 characters or longer and holds a
 * digit (ids, keys, UUIDs), or when it is 24 characters or longer whatever it holds. So
 * `https://hooks.example.com/services/T0123ABCD/B0123ABCD/xoxb4f3a9c2e?token=abc` reads
 * `https://hooks.example.com/services/***\/***\/***`, and `https://erp.example.com/docex/webhook-receiver` stays whole.
 */
export const MASK = "***";

export function isTokenLike(segment: string): boolean {
  return (segment.length >= 8 && /\d/.test(segment)) || segment.length >= 24;
}

export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return MASK;
  }
  const path = url.pathname
    .split("/")
    .map((segment) => (isTokenLike(segment) ? MASK : segment))
    .join("/");
  return `${url.protocol}//${url.host}${path}`;
}
