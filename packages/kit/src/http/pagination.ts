import { z } from "zod";

/** A query parameter given more than once counts by its first value (`?page=2&page=3` is page 2). */
export const firstOf = (value: unknown) => (Array.isArray(value) ? value[0] : value);

/** API.md's page parameters: `page` from 1, `page_size` 1..100 (20 by default); a repeated parameter is a 400. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});

/** The same parameters where a repeated one counts by its first value, and `page` stops at 1,000,000. */
export const firstValuePageQuery = z.object({
  page: z.preprocess(firstOf, z.coerce.number().int().min(1).max(1_000_000).default(1)),
  page_size: z.preprocess(firstOf, z.coerce.number().int().min(1).max(100).default(20)),
});

/** A page of a list as a store answers it. */
export interface PageOf {
  page: number;
  pageSize: number;
  total: number;
}

/** The `pagination` of a list answer (`paginationSchema`). */
export function paginationOf(page: PageOf) {
  return { page: page.page, page_size: page.pageSize, total: page.total, total_pages: Math.ceil(page.total / page.pageSize) };
}

/** A list answer of API.md (`pageOf(schema)`): the page's items, each as `dto` shapes it, and its `pagination`. */
export function pageBody<T, D>(items: readonly T[], dto: (item: T) => D, page: PageOf) {
  return { data: items.map((item) => dto(item)), pagination: paginationOf(page) };
}
