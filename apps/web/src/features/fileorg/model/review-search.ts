/**
 * The review workbench's URL state: filters (bucket, reason, category, text), sort, saved view, the row
 * under the cursor. Parsed from the URL's search params (anything unknown is dropped, so a shared link
 * never breaks the page) and turned into the manifest query the server takes.
 */

export const BUCKETS = ["blocked", "conflict", "needs_review", "auto_safe"] as const;
export type Bucket = (typeof BUCKETS)[number];

/** Fields the manifest may be sorted by (the server's `VIEW_SORT_FIELDS`). */
export const SORT_FIELDS = [
  "source_path",
  "target_path",
  "size",
  "mtime",
  "category",
  "confidence",
  "review_bucket",
  "status",
  "priority",
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** The workbench's search params. */
export interface ReviewSearch {
  bucket?: Bucket | undefined;
  reason?: string | undefined;
  category?: string | undefined;
  q?: string | undefined;
  /** `field` or `-field` (descending). */
  sort?: string | undefined;
  view?: string | undefined;
  row?: string | undefined;
}

function text(value: unknown, max = 500): string | undefined {
  if (typeof value !== "string") return undefined;
  const t = value.trim();
  return t === "" || t.length > max ? undefined : t;
}

/** Parses a sort param: `size` → ascending, `-size` → descending; unknown fields are dropped. */
export function parseSort(
  value: string | undefined,
): { field: SortField; direction: "asc" | "desc" } | undefined {
  if (value === undefined) return undefined;
  const desc = value.startsWith("-");
  const field = desc ? value.slice(1) : value;
  if (!(SORT_FIELDS as readonly string[]).includes(field)) return undefined;
  return { field: field as SortField, direction: desc ? "desc" : "asc" };
}

/** Validates raw search params (from the router) into a `ReviewSearch`; invalid fields are dropped. */
export function parseReviewSearch(raw: Record<string, unknown>): ReviewSearch {
  const bucket = (BUCKETS as readonly unknown[]).includes(raw.bucket) ? (raw.bucket as Bucket) : undefined;
  const reason = text(raw.reason, 64);
  const sort = text(raw.sort, 40);
  const out: ReviewSearch = {
    bucket,
    reason: reason !== undefined && /^[A-Z][A-Z0-9_]*$/.test(reason) ? reason : undefined,
    category: text(raw.category, 64),
    q: text(raw.q),
    sort: parseSort(sort) === undefined ? undefined : sort,
    view: text(raw.view, 100),
    row: text(raw.row, 100),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as ReviewSearch;
}

/** The query of `GET /api/jobs/{id}/manifest` for these params (the row under the cursor is not a filter). */
export function manifestQuery(search: ReviewSearch, limit: number): Record<string, string | number> {
  const q: Record<string, string | number> = { limit };
  if (search.bucket !== undefined) q.bucket = search.bucket;
  if (search.reason !== undefined) q.reason = search.reason;
  if (search.category !== undefined) q.category = search.category;
  if (search.q !== undefined) q.text = search.q;
  if (search.view !== undefined) q.view = search.view;
  const sort = parseSort(search.sort);
  if (sort !== undefined) q.sort = `${sort.field}:${sort.direction}`;
  return q;
}

/** The batch-triage filter equal to the table's filters, or undefined when nothing narrows the rows. */
export function triageFilter(
  search: ReviewSearch,
): { bucket?: Bucket; reason?: string; category?: string; q?: string } | undefined {
  const f: { bucket?: Bucket; reason?: string; category?: string; q?: string } = {};
  if (search.bucket !== undefined) f.bucket = search.bucket;
  if (search.reason !== undefined) f.reason = search.reason;
  if (search.category !== undefined) f.category = search.category;
  if (search.q !== undefined) f.q = search.q;
  return Object.keys(f).length === 0 ? undefined : f;
}

/** A saved view's body for the current filters and sort (`POST /api/preferences/views`). */
export function viewFromSearch(name: string, search: ReviewSearch) {
  const sort = parseSort(search.sort);
  return {
    name,
    filter: {
      ...(search.bucket === undefined ? {} : { bucket: search.bucket }),
      ...(search.reason === undefined ? {} : { reason: search.reason }),
      ...(search.category === undefined ? {} : { category: search.category }),
      ...(search.q === undefined ? {} : { q: search.q }),
    },
    sort: sort === undefined ? [] : [sort],
  };
}
