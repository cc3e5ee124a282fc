import { and, eq, inArray } from "drizzle-orm";
import type { ManifestRow } from "../../domain/manifest.js";
import {
  type BucketVerdict,
  computeReviewBucket,
  mergeReasonCodes,
  REVIEW_CONFIDENCE_THRESHOLD,
  REVIEW_MARKER_REASONS,
  REVIEW_MARKERS,
} from "../../domain/review-bucket.js";
import { JobStateError, NotFoundError } from "../../errors.js";
import { rows } from "../../store/schema.js";
import { chunk, type Queryable } from "../db.js";
import { planHashOf, planRowDigest } from "../plan-hash.js";
import { findJob, type JobRecord } from "../records.js";

/** A manifest row as stored (without `place_dir`, which SQLite derives for the grouped view's index). */
export type RowRecord = Omit<typeof rows.$inferSelect, "placeDir">;

/** Maps a stored row to its public shape. */
export function toManifestRow(r: RowRecord): ManifestRow {
  return {
    row_id: r.id,
    job_id: r.jobId,
    source_path: r.sourcePath,
    target_path: r.targetPath,
    size: r.size,
    mtime: r.mtime,
    sha256: r.sha256,
    mime: r.mime,
    category: r.category,
    confidence: r.confidence,
    action: r.action,
    review_bucket: r.reviewBucket,
    reason_codes: r.reasonCodes,
    status: r.status,
    edited: r.edited,
    error: r.error ?? null,
    conflict_ids: r.conflictIds,
    applied_rules: r.appliedRules,
    date: r.date ?? r.mtime,
    date_source: r.dateSource ?? "mtime",
    unit: r.unit ?? null,
    meta: r.meta ?? null,
  };
}

/** Whether apply would move the row (its part of the plan hash). */
export function isEligible(r: Pick<RowRecord, "reviewBucket" | "action">): boolean {
  return r.action === "move" && r.reviewBucket !== "blocked" && r.reviewBucket !== "conflict";
}

/** The plan digest of a stored row. */
export function digestOf(
  r: Pick<RowRecord, "id" | "action" | "sourcePath" | "targetPath" | "sha256" | "reviewBucket">,
): string {
  return planRowDigest({
    rowId: r.id,
    action: r.action,
    sourcePath: r.sourcePath,
    targetPath: r.targetPath,
    sha256: r.sha256,
    eligible: isEligible(r),
  });
}

/** What a row's bucket is computed from. */
export type BucketFields = Pick<
  RowRecord,
  "blocked" | "conflictIds" | "confidence" | "edited" | "action" | "reasonCodes"
>;

/** The confidence threshold of an analyze job (from its strategy pack), or the default one. */
export function thresholdOf(job: Pick<JobRecord, "params"> | undefined): number {
  const t = job?.params.confidence_threshold;
  return typeof t === "number" && t >= 0 && t <= 1 ? t : REVIEW_CONFIDENCE_THRESHOLD;
}

/**
 * The verdict on a stored row: its bucket and the reasons, reading review's markers (approved, a learned
 * suggestion that disagrees) from its stored reason codes.
 */
export function verdictOf(r: BucketFields, threshold = REVIEW_CONFIDENCE_THRESHOLD): BucketVerdict {
  return computeReviewBucket(
    {
      blocked: r.blocked,
      openConflicts: r.conflictIds.length,
      confidence: r.confidence,
      edited: r.edited,
      action: r.action,
      approved: r.reasonCodes.includes(REVIEW_MARKERS.approved),
      skipExpected:
        r.reasonCodes.includes("ALREADY_IN_PLACE") ||
        r.reasonCodes.includes(REVIEW_MARKERS.skipChosen) ||
        // A person who sets a row to skip has decided it.
        (r.edited && r.action === "skip") ||
        r.blocked,
      reviewReasons: r.reasonCodes.filter((c) => REVIEW_MARKER_REASONS.includes(c)),
    },
    threshold,
  );
}

/** The bucket of a stored row and its reason codes with the verdict's reasons refreshed. */
export function reviewOf(
  r: BucketFields,
  threshold = REVIEW_CONFIDENCE_THRESHOLD,
): { reviewBucket: RowRecord["reviewBucket"]; reasonCodes: string[] } {
  const verdict = verdictOf(r, threshold);
  return { reviewBucket: verdict.bucket, reasonCodes: mergeReasonCodes(r.reasonCodes, verdict) };
}

/** The bucket of a stored row. */
export function bucketOf(
  r: BucketFields,
  threshold = REVIEW_CONFIDENCE_THRESHOLD,
): RowRecord["reviewBucket"] {
  return verdictOf(r, threshold).bucket;
}

/** Loads an analyze job or throws JOB_NOT_FOUND / WRONG_JOB_KIND. */
export async function requireManifestJob(db: Queryable, jobId: string): Promise<JobRecord> {
  const job = await findJob(db, jobId);
  if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`, { job_id: jobId });
  if (job.kind !== "analyze") {
    throw new JobStateError(
      "WRONG_JOB_KIND",
      `Job ${jobId} is a ${job.kind} job; a manifest belongs to an analyze job.`,
      { job_id: jobId, kind: job.kind },
    );
  }
  return job;
}

/** Throws JOB_NOT_READY unless the analyze job that owns a manifest has succeeded. */
export function assertManifestReady(job: JobRecord): void {
  if (job.status !== "succeeded") {
    throw new JobStateError(
      "JOB_NOT_READY",
      `The manifest of ${job.id} is not ready (job is ${job.status}).`,
      {
        job_id: job.id,
        status: job.status,
      },
    );
  }
}

/** The public plan hash of a manifest job. */
export function planHashOfJob(job: JobRecord): string | null {
  return job.planAccumulator === null ? null : planHashOf(job.planAccumulator);
}

/** Loads rows of a job by id, in chunks. */
export async function loadRows(db: Queryable, jobId: string, ids: readonly string[]): Promise<RowRecord[]> {
  const out: RowRecord[] = [];
  for (const part of chunk([...new Set(ids)], 500)) {
    out.push(
      ...(await db
        .select()
        .from(rows)
        .where(and(eq(rows.jobId, jobId), inArray(rows.id, part)))),
    );
  }
  return out;
}
