import { infiniteQueryOptions } from "@tanstack/react-query";
import { fetchManifestPage, REVIEW_PAGE_SIZE, takeEarlyRows } from "./first-rows.js";
import { manifestQuery, type ReviewSearch } from "./model/review-search.js";

export { REVIEW_PAGE_SIZE };

/**
 * The review table's rows for these search params, page by page. Small and in the console's first bundle,
 * so the route's loader can start the first page while the review page's own code is still loading; the
 * page's `useInfiniteQuery` then takes that same in-flight query from the one query cache. A first page
 * the early entry already asked for (`first-rows.ts`) is taken instead of asking again.
 */
export function reviewRowsOptions(jobId: string, search: ReviewSearch) {
  const query = manifestQuery(search, REVIEW_PAGE_SIZE);
  return infiniteQueryOptions({
    queryKey: ["fileorg", "manifest", jobId, "rows", query],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      (pageParam === undefined ? takeEarlyRows(jobId, query) : undefined) ??
      fetchManifestPage(jobId, query, pageParam),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}
