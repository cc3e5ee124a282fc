/**
 * The review page's summary, pure: counts per bucket in words, the top reasons worth a filter, and the one
 * next action a person should take (resolve the conflicts, review what needs it, else apply).
 */
import type { Bucket } from "./review-search.js";

/** What `GET /api/jobs/{job_id}/review-queue` says about the whole manifest (its `summary`). */
export interface ReviewCounts {
  total: number;
  needing_attention: number;
  buckets: Record<Bucket, number>;
  top_reasons: ReadonlyArray<{ code: string; label: string; count: number }>;
}

/** The bucket order of the summary: what needs a person first. */
export const SUMMARY_BUCKETS: readonly Bucket[] = ["needs_review", "conflict", "blocked", "auto_safe"];

const BUCKET_WORDS: Record<Bucket, string> = {
  needs_review: "to review",
  conflict: "in conflict",
  blocked: "blocked",
  auto_safe: "auto-safe",
};

/** `13 to review`, `1 in conflict`, `300 auto-safe`. */
export function bucketPhrase(bucket: Bucket, count: number): string {
  return `${count} ${BUCKET_WORDS[bucket]}`;
}

/** A bucket filter option: `needs_review (13)`, or the bare bucket while the counts load. */
export function bucketOption(bucket: Bucket, counts: ReviewCounts | undefined): string {
  return counts === undefined ? bucket : `${bucket} (${counts.buckets[bucket]})`;
}

/** Reason codes that say what a person did, not why the row needs one: never offered as a filter. */
const PERSON_MARKERS = new Set(["APPROVED", "EDITED"]);
/** Reason codes that only inform (how the type was read, which rule acted): listed after the others. */
const NOTES = new Set([
  "MIME_FROM_EXTENSION",
  "MIME_FROM_MAGIC",
  "PACK_RULE",
  "SAVED_RULE",
  "LEARNED_AGREES",
  "ALREADY_IN_PLACE",
  "UNIT_KEPT_WHOLE",
  "PACK_CATEGORY",
]);

/**
 * The most frequent reasons among the rows needing attention, at most `max`: the reasons that send a row to
 * a person first, then the notes, each group biggest first (the server's order).
 */
export function topReasons(counts: ReviewCounts, max = 5): ReviewCounts["top_reasons"] {
  const kept = counts.top_reasons.filter((r) => r.count > 0 && !PERSON_MARKERS.has(r.code));
  return [...kept.filter((r) => !NOTES.has(r.code)), ...kept.filter((r) => NOTES.has(r.code))].slice(0, max);
}

/** The one thing to do next. */
export type NextAction =
  | { kind: "resolve_conflicts"; conflicts: number; rows: number; label: string }
  | { kind: "review"; rows: number; label: string }
  | { kind: "apply"; rows: number; label: string };

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The suggested next action: open conflicts first (nothing in one moves), then the rows needing review
 * (they stay unless a person approves or edits them), else apply what is safe. `openConflicts` is the
 * number of open conflicts when known (each holds two or more rows); rows in the conflict bucket otherwise.
 */
export function nextAction(counts: ReviewCounts, openConflicts: number | undefined): NextAction {
  const { conflict, needs_review, auto_safe } = counts.buckets;
  if (conflict > 0 || (openConflicts ?? 0) > 0) {
    const n = openConflicts ?? conflict;
    return {
      kind: "resolve_conflicts",
      conflicts: n,
      rows: conflict,
      label: `Resolve ${plural(n, "conflict", "conflicts")}`,
    };
  }
  if (needs_review > 0) {
    return { kind: "review", rows: needs_review, label: `Review ${plural(needs_review, "file", "files")}` };
  }
  return {
    kind: "apply",
    rows: auto_safe,
    label: `Apply ${plural(auto_safe, "auto-safe file", "auto-safe files")}`,
  };
}

/** What still needs a person, in words: `25 files need a person: 13 to review, 12 in conflict`. */
export function attentionPhrase(counts: ReviewCounts): string {
  const parts = (["needs_review", "conflict", "blocked"] as const)
    .filter((b) => counts.buckets[b] > 0)
    .map((b) => bucketPhrase(b, counts.buckets[b]));
  if (parts.length === 0) return "Nothing needs a person: every file is auto-safe.";
  const n = counts.needing_attention;
  return `${plural(n, "file needs", "files need")} a person: ${parts.join(", ")}.`;
}
