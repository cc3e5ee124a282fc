import { api, unwrap } from "../../api/client.js";
import { manifestQuery, type ReviewSearch } from "./model/review-search.js";

/** Rows per page of the review table. */
export const REVIEW_PAGE_SIZE = 200;
/** How long a page fetched ahead of the review page waits to be taken (the page mounts right after). */
const EARLY_PAGE_TTL_MS = 5_000;

/** The query of the review table's pages for these search params. */
export function reviewPageQuery(search: ReviewSearch): Record<string, string | number> {
  return manifestQuery(search, REVIEW_PAGE_SIZE);
}

/** One page of a manifest (`GET /api/jobs/{job_id}/manifest`), after `cursor` when given. */
export function fetchManifestPage(jobId: string, query: Record<string, string | number>, cursor?: string) {
  return unwrap(
    api.GET("/api/jobs/{job_id}/manifest", {
      params: {
        path: { job_id: jobId },
        query: { ...query, ...(cursor === undefined ? {} : { cursor }) } as never,
      },
    }),
  );
}

type Page = Awaited<ReturnType<typeof fetchManifestPage>>;
const early = new Map<string, { at: number; page: Promise<Page> }>();
const keyOf = (jobId: string, query: Record<string, string | number>) => JSON.stringify([jobId, query]);

/**
 * Asks for the first page of the review table as soon as the route matches — from the route's loader, in
 * the console's first bundle — so the rows travel while the review page's own code is still loading.
 */
export function fetchFirstPageEarly(jobId: string, search: ReviewSearch): void {
  const now = Date.now();
  for (const [key, entry] of early) if (now - entry.at > EARLY_PAGE_TTL_MS) early.delete(key);
  const query = reviewPageQuery(search);
  const key = keyOf(jobId, query);
  if (early.has(key)) return;
  const page = fetchManifestPage(jobId, query);
  page.catch(() => undefined); // the review page's query reports the error when it takes the page
  early.set(key, { at: now, page });
}

/**
 * The first page fetched early for this query, once (it is forgotten when taken), or `undefined` when
 * there is none or it is too old to trust. Only a first load may take it: a refetch must ask the server.
 */
export function takeEarlyFirstPage(
  jobId: string,
  query: Record<string, string | number>,
): Promise<Page> | undefined {
  const key = keyOf(jobId, query);
  const entry = early.get(key);
  early.delete(key);
  return entry !== undefined && Date.now() - entry.at <= EARLY_PAGE_TTL_MS ? entry.page : undefined;
}
