import type { ManifestRow } from "../../domain/manifest.js";
import { REVIEW_MARKERS } from "../../domain/review-bucket.js";
import { FileorgError } from "../../errors.js";
import type { RowRecord } from "../manifest/index.js";
import type { JobRecord } from "../records.js";

/** Options of a review verb that changes the manifest. */
export interface RevisionOptions {
  /** When given (HTTP `If-Match`), the manifest must still be at this revision, else REVISION_MISMATCH. */
  expectedRevision?: number | undefined;
}

/**
 * Throws REVISION_MISMATCH (HTTP 412) when a verb that ends up changing nothing was asked against a stale
 * revision: a stale `If-Match` is refused whether or not there was anything to change. (A verb that
 * changes rows is checked again inside its patch transaction, by the core.)
 */
export function assertExpectedRevision(job: Pick<JobRecord, "revision">, expected: number | undefined): void {
  const revision = job.revision ?? 0;
  if (expected !== undefined && expected !== revision) {
    throw new FileorgError(
      "REVISION_MISMATCH",
      `The manifest is at revision ${revision}, not ${expected}; reload and retry.`,
      { revision, expected },
    );
  }
}

/** What a person sees of a row: a change to any of these is a change the triage made. */
function visibleState(r: {
  category: string;
  target: string;
  action: string;
  bucket: string;
  reasons: readonly string[];
}) {
  const approved = r.reasons.includes(REVIEW_MARKERS.approved);
  return `${r.category}\u0000${r.target}\u0000${r.action}\u0000${r.bucket}\u0000${approved}`;
}

/** How many rows differ between before (as stored) and after (as answered by the patch batch). */
export function countChangedRows(before: readonly RowRecord[], after: readonly ManifestRow[]): number {
  const was = new Map(
    before.map((r) => [
      r.id,
      visibleState({
        category: r.category,
        target: r.targetPath,
        action: r.action,
        bucket: r.reviewBucket,
        reasons: r.reasonCodes,
      }),
    ]),
  );
  let changed = 0;
  for (const r of after) {
    const now = visibleState({
      category: r.category,
      target: r.target_path,
      action: r.action,
      bucket: r.review_bucket,
      reasons: r.reason_codes,
    });
    if (was.get(r.row_id) !== now) changed++;
  }
  return changed;
}
