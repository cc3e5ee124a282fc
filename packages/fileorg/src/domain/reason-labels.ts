/**
 * Reason codes and review buckets in words. No imports but types, so `@vetted/fileorg/browser` serves the
 * same labels to the web console.
 */
import type { ReviewBucket } from "./manifest.js";

/** The human label of every reason code review knows (analyze's, the bucket function's, review's). */
export const REVIEW_REASON_LABELS: Readonly<Record<string, string>> = {
  BLOCKED: "Blocked: the row cannot be applied as it is",
  UNREADABLE: "The file could not be read",
  SYMLINK: "A symlink: listed, never followed or moved",
  SPECIAL_FILE: "A special file (FIFO, socket or device): listed, never read or moved",
  PROTECTED_PATH:
    "The server's own data (data directory, database or key files): listed, never read or moved",
  SOURCE_CHANGED: "The file changed since it was analyzed",
  OPEN_CONFLICT: "A conflict involving this row is still open",
  LOW_CONFIDENCE: "The classification is under the confidence threshold of the strategy pack",
  LEARNED_DISAGREES: "What you did with similar files suggests something else",
  LEARNED_AGREES: "What you did with similar files agrees with the plan",
  EDITED: "Edited by a person, to be confirmed",
  IGNORED: "Marked to be skipped",
  APPROVED: "Approved by a person",
  ALREADY_IN_PLACE: "The file is already where the plan would put it",
  MIME_FROM_MAGIC: "Type recognized from the file's content",
  MIME_FROM_EXTENSION: "Type guessed from the extension only",
  EXTENSION_MISMATCH: "The extension does not match the content",
  UNKNOWN_TYPE: "The file type is unknown",
  PACK_RULE: "A rule of the strategy pack acted on this row",
  SAVED_RULE: "One of your saved rules acted on this row",
  PACK_CATEGORY: "Filed as other: the strategy pack does not sort into its category",
  FILE_TOO_LARGE: "The file is larger than the max_file_bytes limit",
  SKIP_CHOSEN: "Skipped by a rule, a triage or a conflict resolution",
  UNIT_KEPT_WHOLE:
    "Part of a folder kept whole (a project, bundle, album or photo shoot): it moves with its unit",
};

/** The human label of a reason code; unknown codes are labelled from their words. */
export function labelReason(code: string): string {
  const known = REVIEW_REASON_LABELS[code] ?? REVIEW_REASON_LABELS[code.toUpperCase()];
  if (known !== undefined) return known;
  const words = code.toLowerCase().replaceAll(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Human labels of the buckets. */
export const BUCKET_LABELS: Readonly<Record<ReviewBucket, string>> = {
  blocked: "Blocked: cannot be applied as it is",
  conflict: "Conflict: must be resolved before apply",
  needs_review: "Needs review",
  auto_safe: "Safe to apply",
};
