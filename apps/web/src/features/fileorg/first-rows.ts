import { api, getToken, unwrap } from "../../api/client.js";
import { manifestQuery, parseReviewSearch } from "./model/review-search.js";

/** Rows per page of the review table. */
export const REVIEW_PAGE_SIZE = 200;

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

type ManifestPage = Awaited<ReturnType<typeof fetchManifestPage>>;

/** The review page's first rows asked for before the console's own code ran, until a query takes them. */
let early: { key: string; page: Promise<ManifestPage> } | undefined;

/** What identifies a first page: the job, the query and the token it was asked with. */
function keyOf(jobId: string, query: Record<string, string | number>): string {
  return JSON.stringify([jobId, query, getToken() ?? null]);
}

const REVIEW_PATH = /^\/files\/jobs\/([^/]+)\/?$/;

/**
 * On a review page's address (`/files/jobs/$jobId?…`), asks for its first rows at once: called by the
 * console's small early entry (`src/early.ts`), which the browser runs while it still loads and runs the
 * console's main bundle. The review table's first query takes them ({@link takeEarlyRows}); anything
 * else (another page, an address the router reads differently) leaves them unused. Answers whether the
 * address was a review page's.
 */
export function startEarlyRows(location: { pathname: string; search: string }): boolean {
  const match = REVIEW_PATH.exec(location.pathname);
  if (match?.[1] === undefined) return false;
  let jobId: string;
  try {
    jobId = decodeURIComponent(match[1]);
  } catch {
    return false;
  }
  const raw = Object.fromEntries(new URLSearchParams(location.search));
  const query = manifestQuery(parseReviewSearch(raw), REVIEW_PAGE_SIZE);
  const page = fetchManifestPage(jobId, query);
  // Never an unhandled rejection: the query that takes it sees the error (a 401 opens the token prompt).
  page.catch(() => undefined);
  early = { key: keyOf(jobId, query), page };
  return true;
}

/**
 * The first rows asked for early, when they are this job's and query's (with the same token); each early
 * answer is taken once, and any first-page query drops an early answer that is not its own.
 */
export function takeEarlyRows(
  jobId: string,
  query: Record<string, string | number>,
): Promise<ManifestPage> | undefined {
  const taken = early;
  early = undefined;
  return taken !== undefined && taken.key === keyOf(jobId, query) ? taken.page : undefined;
}
