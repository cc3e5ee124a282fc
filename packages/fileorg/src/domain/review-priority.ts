import { REVIEW_BUCKETS } from "./manifest.js";
import type { ReviewRow } from "./review-row.js";

export { BUCKET_LABELS, labelReason, REVIEW_REASON_LABELS } from "./reason-labels.js";

/**
 * The review priority rank of a row: lower is reviewed first. Orders by bucket (blocked, conflict,
 * needs_review, auto_safe), then by lower confidence — the order of the review queue, whose index is
 * (bucket, confidence, analyze order). Ties are broken by analyze order (here: `row_id`).
 */
export function reviewPriorityRank(row: Pick<ReviewRow, "review_bucket" | "confidence">): number {
  const bucket = REVIEW_BUCKETS.indexOf(row.review_bucket);
  const confidence = Math.round(Math.min(1, Math.max(0, row.confidence)) * 1_000_000);
  return bucket * 10_000_000 + confidence;
}

/** Sorts rows into review order (a new array). */
export function orderForReview<R extends Pick<ReviewRow, "row_id" | "review_bucket" | "confidence">>(
  rows: readonly R[],
): R[] {
  return rows
    .map((row) => ({ row, rank: reviewPriorityRank(row) }))
    .sort(
      (a, b) => a.rank - b.rank || (a.row.row_id < b.row.row_id ? -1 : a.row.row_id > b.row.row_id ? 1 : 0),
    )
    .map((x) => x.row);
}
