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
  /** A person approved the row as it is: no `needs_review` reason applies (blocked and conflict still do). */
  approved?: boolean;
  /**
   * The skip was decided (already in place; chosen by a rule, a triage, a resolution, or a person's edit):
   * the row needs no review, whatever its other reasons.
   */
  skipExpected?: boolean;
}

/** The reason codes the bucket function itself produces; everything else in `reason_codes` is kept. */
export const BUCKET_REASON_CODES = [
  "BLOCKED",
  "OPEN_CONFLICT",
  "LOW_CONFIDENCE",
  "EDITED",
  "IGNORED",
] as const;

/** Reason codes review keeps on a row across recomputes, read back as bucket inputs. */
export const REVIEW_MARKERS = {
  approved: "APPROVED",
  learnedDisagrees: "LEARNED_DISAGREES",
  learnedAgrees: "LEARNED_AGREES",
  /** A rule, a triage or a conflict resolution chose to skip the row: the skip itself needs no review. */
  skipChosen: "SKIP_CHOSEN",
} as const;

/** Markers that send a row to `needs_review` on their own. */
export const REVIEW_MARKER_REASONS: readonly string[] = [
  REVIEW_MARKERS.learnedDisagrees,
  // What analyze finds in a file's bytes: a name its content contradicts, an empty file.
  "EXTENSION_MISMATCH",
  "EMPTY_FILE",
];

/**
 * The stored reason codes after a verdict: the codes that explain the row (analyze's and review's markers)
 * followed by the verdict's own reasons, without duplicates.
 */
export function mergeReasonCodes(stored: readonly string[], verdict: BucketVerdict): string[] {
  const own = new Set<string>(BUCKET_REASON_CODES);
  const out = stored.filter((c) => !own.has(c));
  for (const r of verdict.reasons) if (!out.includes(r)) out.push(r);
  return out;
}

/** A row's bucket and the reasons for it. */
export interface BucketVerdict {
  bucket: ReviewBucket;
  reasons: string[];
}

/**
 * Puts a row in its review bucket: `blocked` > `conflict` > `needs_review` (low confidence, edited, or any
 * extra review reason) > `auto_safe`; an approved row and a decided skip are `auto_safe`. Pure; the reasons
 * say why.
 */
export function computeReviewBucket(
  input: BucketInput,
  threshold: number = REVIEW_CONFIDENCE_THRESHOLD,
): BucketVerdict {
  if (input.blocked) return { bucket: "blocked", reasons: ["BLOCKED"] };
  if (input.openConflicts > 0) return { bucket: "conflict", reasons: ["OPEN_CONFLICT"] };
  if (input.approved === true) return { bucket: "auto_safe", reasons: [] };
  // A skip that was decided (by a person, a rule, a triage, a resolution, or the file already in place)
  // moves nothing: whatever the file looks like, there is nothing left to review, so it leaves the queue.
  if (input.action === "skip" && input.skipExpected === true) return { bucket: "auto_safe", reasons: [] };
  const reasons: string[] = [];
  if (input.action === "move" && input.confidence < threshold) reasons.push("LOW_CONFIDENCE");
  if (input.edited) reasons.push("EDITED");
  if (input.action === "skip" && input.skipExpected !== true) reasons.push("IGNORED");
  if (input.reviewReasons !== undefined) reasons.push(...input.reviewReasons);
  return reasons.length > 0 ? { bucket: "needs_review", reasons } : { bucket: "auto_safe", reasons: [] };
}
