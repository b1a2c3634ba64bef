/** Request headers as Node's `req.headers` (IncomingHttpHeaders) or a Fetch `Headers` object hold them. */
export type HeadersLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** One header's value, by its lowercase name; a repeated header arrives joined, as Node joins unknown headers. */
export function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === "function") return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = name in record ? name : Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(", ") : value;
}
