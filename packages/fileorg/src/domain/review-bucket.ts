import type { ReviewBucket, RowAction } from "./manifest.js";

/** Rows whose confidence is below this go to `needs_review`. */
export const REVIEW_CONFIDENCE_THRESHOLD = 0.7;

/** What the bucket of a row depends on. */
export interface BucketInput {
  /** Set when the row cannot be applied at all (unreadable file, …). */
  blocked: boolean;
  /** Open conflicts the row is part of. */
  openConflicts: number;
  confidence: number;
  edited: boolean;
  action: RowAction;
  /** Extra reasons (from review rules) that send a row to `needs_review`. */
  reviewReasons?: readonly string[];
}

/** A row's bucket and the reasons for it. */
export interface BucketVerdict {
  bucket: ReviewBucket;
  reasons: string[];
}

/**
 * Puts a row in its review bucket: `blocked` > `conflict` > `needs_review` (low confidence, edited, or any
 * extra review reason) > `auto_safe`. Pure; the reasons say why.
 */
export function computeReviewBucket(
  input: BucketInput,
  threshold: number = REVIEW_CONFIDENCE_THRESHOLD,
): BucketVerdict {
  if (input.blocked) return { bucket: "blocked", reasons: ["BLOCKED"] };
  if (input.openConflicts > 0) return { bucket: "conflict", reasons: ["OPEN_CONFLICT"] };
  const reasons: string[] = [];
  if (input.action === "move" && input.confidence < threshold) reasons.push("LOW_CONFIDENCE");
  if (input.edited) reasons.push("EDITED");
  if (input.reviewReasons !== undefined) reasons.push(...input.reviewReasons);
  return reasons.length > 0 ? { bucket: "needs_review", reasons } : { bucket: "auto_safe", reasons: [] };
}
