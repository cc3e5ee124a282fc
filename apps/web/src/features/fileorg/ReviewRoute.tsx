import { useParams, useSearch } from "@tanstack/react-router";
import { parseReviewSearch } from "./model/review-search.js";
import { ReviewPage } from "./ReviewPage.js";

/** `/files/jobs/$jobId?bucket=&reason=&category=&q=&sort=&view=`: the review workbench. */
export function ReviewRoute() {
  const { jobId } = useParams({ strict: false }) as { jobId: string };
  const search = parseReviewSearch(useSearch({ strict: false }) as Record<string, unknown>);
  return <ReviewPage jobId={jobId} search={search} />;
}
