import { infiniteQueryOptions } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client.js";
import { manifestQuery, type ReviewSearch } from "./model/review-search.js";

/** Rows per page of the review table. */
export const REVIEW_PAGE_SIZE = 200;

/** One page of a manifest (`GET /api/jobs/{job_id}/manifest`), after `cursor` when given. */
function fetchManifestPage(jobId: string, query: Record<string, string | number>, cursor?: string) {
  return unwrap(
    api.GET("/api/jobs/{job_id}/manifest", {
      params: {
        path: { job_id: jobId },
        query: { ...query, ...(cursor === undefined ? {} : { cursor }) } as never,
      },
    }),
  );
}

/**
 * The review table's rows for these search params, page by page. Small and in the console's first bundle,
 * so the route's loader can start the first page while the review page's own code is still loading; the
 * page's `useInfiniteQuery` then takes that same in-flight query from the one query cache.
 */
export function reviewRowsOptions(jobId: string, search: ReviewSearch) {
  const query = manifestQuery(search, REVIEW_PAGE_SIZE);
  return infiniteQueryOptions({
    queryKey: ["fileorg", "manifest", jobId, "rows", query],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchManifestPage(jobId, query, pageParam),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}
