import { REVIEW_BUCKETS, type ReviewBucket } from "./manifest.js";
import type { ReviewRow } from "./review-row.js";

/**
 * Reason codes review adds to the analyze engine's own, and the human label of every code review knows.
 * Unknown codes are labelled from their words (`target_exists` → "Target exists").
 */
export const REVIEW_REASON_LABELS: Readonly<Record<string, string>> = {
  unreadable: "The file could not be read",
  source_changed: "The file changed since it was analyzed",
  error: "An error was recorded for this row",
  open_conflict: "A conflict involving this row is still open",
  duplicate_target: "Another row has the same target",
  target_exists: "Something already exists at the target",
  case_collision: "The target differs from another only by case or Unicode form",
  duplicate_content: "The same content exists under another name",
  outside_root: "The target would leave the output root",
  low_confidence: "The classification is not confident enough for the active strategy pack",
  learned_disagrees: "What you did with similar files suggests something else",
  learned_agrees: "What you did with similar files agrees with the plan",
  edited: "Edited by a person, to be confirmed",
  ignored: "Marked to be skipped",
  approved: "Approved by a person",
  already_in_place: "The file is already where the plan would put it",
};

/** The human label of a reason code. */
export function labelReason(code: string): string {
  const known = REVIEW_REASON_LABELS[code];
  if (known !== undefined) return known;
  const words = code.replaceAll(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Human labels of the buckets. */
export const BUCKET_LABELS: Readonly<Record<ReviewBucket, string>> = {
  blocked: "Blocked: cannot be applied as it is",
  conflict: "Conflict: must be resolved before apply",
  needs_review: "Needs review",
  auto_safe: "Safe to apply",
};

/** How urgent a reason is inside its bucket: higher is looked at first. */
const REASON_SEVERITY: Readonly<Record<string, number>> = {
  error: 9,
  unreadable: 9,
  source_changed: 8,
  outside_root: 8,
  target_exists: 7,
  duplicate_target: 7,
  case_collision: 6,
  open_conflict: 6,
  duplicate_content: 5,
  learned_disagrees: 5,
  low_confidence: 4,
  edited: 3,
  ignored: 2,
};

/**
 * The review priority rank of a row: lower is reviewed first. Orders by bucket (blocked, conflict,
 * needs_review, auto_safe), then by the most severe reason, then by lower confidence. An integer, so it can
 * be stored and indexed; ties are broken by `row_id`.
 */
export function reviewPriorityRank(
  row: Pick<ReviewRow, "review_bucket" | "reason_codes" | "confidence">,
): number {
  const bucket = REVIEW_BUCKETS.indexOf(row.review_bucket);
  let severity = 0;
  for (const code of row.reason_codes) severity = Math.max(severity, REASON_SEVERITY[code] ?? 1);
  const confidence = Math.round(Math.min(1, Math.max(0, row.confidence)) * 1000);
  return bucket * 10_000_000 + (9 - severity) * 1_000_000 + confidence;
}

/** Sorts rows into review order (a new array). */
export function orderForReview<
  R extends Pick<ReviewRow, "row_id" | "review_bucket" | "reason_codes" | "confidence">,
>(rows: readonly R[]): R[] {
  return rows
    .map((row) => ({ row, rank: reviewPriorityRank(row) }))
    .sort(
      (a, b) => a.rank - b.rank || (a.row.row_id < b.row.row_id ? -1 : a.row.row_id > b.row.row_id ? 1 : 0),
    )
    .map((x) => x.row);
}
