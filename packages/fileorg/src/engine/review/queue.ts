import { CursorInvalidError, encodeCursor } from "@vetted/store";
import { and, asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { suggestFor } from "../../domain/learned-signals.js";
import { REVIEW_BUCKETS, type ReviewBucket } from "../../domain/manifest.js";
import type {
  ReviewQueuePage,
  ReviewQueueQuery,
  ReviewQueueRow,
  ReviewSummary,
} from "../../domain/review-api.js";
import { labelReason } from "../../domain/review-priority.js";
import { rows } from "../../store/schema.js";
import { type RowRecord, requireManifestJob, toManifestRow } from "../manifest/index.js";
import { cursorKey, pageLimit } from "../query-kit.js";
import type { JobRecord } from "../records.js";
import { learnedIndex } from "./learning.js";
import { type ReviewResources, reasonFilter } from "./resources.js";

/** The list name a review-queue cursor is bound to (a cursor of another list is CURSOR_INVALID). */
const REVIEW_QUEUE_LIST = "fileorg.review-queue";
const QUEUE_BUCKETS: readonly ReviewBucket[] = ["blocked", "conflict", "needs_review"];
/** The page size of a queue page that names none. */
const QUEUE_DEFAULT_LIMIT = 100;

interface QueueCursor {
  bucket: number;
  confidence: number;
  seq: number;
}

/** The queue's sort key after `cursor`: bucket index, confidence (kept exact as its decimal text), seq. */
function queueCursor(cursor: string | undefined): QueueCursor | undefined {
  const key = cursorKey(cursor, REVIEW_QUEUE_LIST, ["integer", "string", "integer"]);
  if (key === undefined) return undefined;
  const [bucket, text, seq] = [Number(key[0]), String(key[1]), Number(key[2])];
  const confidence = Number(text);
  if (!Number.isFinite(confidence) || String(confidence) !== text) {
    throw new CursorInvalidError("confidence is not a number");
  }
  if (bucket < 0 || bucket >= REVIEW_BUCKETS.length) throw new CursorInvalidError("unknown bucket");
  return { bucket, confidence, seq };
}

function cursorOf(last: RowRecord): string {
  const bucket = REVIEW_BUCKETS.indexOf(last.reviewBucket);
  return encodeCursor(REVIEW_QUEUE_LIST, [bucket, String(last.confidence), last.seq]);
}

/** Counts per bucket and the top reasons of a job (cached per manifest revision). */
export async function summaryOf(
  res: ReviewResources,
  jobId: string,
  known?: JobRecord,
): Promise<ReviewSummary> {
  const { db } = res;
  const job = known ?? (await requireManifestJob(db, jobId));
  const cached = res.summaries.get(jobId);
  const cacheable = job.status === "succeeded" && job.revision !== null;
  if (cacheable && cached !== undefined && cached.revision === job.revision) return cached.summary;
  const counts = await db
    .select({ bucket: rows.reviewBucket, n: sql<number>`count(*)` })
    .from(rows)
    .where(eq(rows.jobId, jobId))
    .groupBy(rows.reviewBucket);
  const buckets = { blocked: 0, conflict: 0, needs_review: 0, auto_safe: 0 };
  for (const c of counts) buckets[c.bucket] = Number(c.n);
  const reasons = await db.all<{ code: string; n: number }>(
    sql`SELECT j.value AS code, count(*) AS n FROM ${rows}, json_each(${rows.reasonCodes}) AS j
        WHERE ${rows.jobId} = ${jobId} AND ${rows.reviewBucket} != 'auto_safe'
        GROUP BY j.value ORDER BY n DESC, code LIMIT 8`,
  );
  const summary: ReviewSummary = {
    total: buckets.blocked + buckets.conflict + buckets.needs_review + buckets.auto_safe,
    needing_attention: buckets.blocked + buckets.conflict + buckets.needs_review,
    buckets,
    top_reasons: reasons.map((r) => ({ code: r.code, label: labelReason(r.code), count: Number(r.n) })),
  };
  if (cacheable && job.revision !== null) res.summaries.set(jobId, { revision: job.revision, summary });
  return summary;
}

/** Stored rows as queue rows: labelled reasons and learned suggestions. */
export async function toQueueRows(
  res: ReviewResources,
  job: JobRecord,
  records: RowRecord[],
): Promise<ReviewQueueRow[]> {
  const outputDir = String(job.params.output_dir ?? "");
  const index = await learnedIndex(res);
  return records.map((r) => {
    const row = toManifestRow(r);
    return {
      ...row,
      reasons: row.reason_codes.map((code) => ({ code, label: labelReason(code) })),
      suggestions: suggestFor(row, index, outputDir, res.learning),
    };
  });
}

/** Extra conditions of a queue page (a saved view's filter): more conditions, and statuses in scope. */
export interface QueueScope {
  where?: readonly SQL[] | undefined;
  /** The statuses listed when no bucket is asked for (default: pending and failed). */
  statuses?: readonly RowRecord["status"][] | undefined;
}

/** The rows of one bucket after the cursor, in priority order (lowest confidence first, then analyze order). */
function bucketWhere(
  jobId: string,
  bucket: ReviewBucket,
  query: ReviewQueueQuery,
  cursor?: QueueCursor,
  scope: QueueScope = {},
): SQL[] {
  const b = REVIEW_BUCKETS.indexOf(bucket);
  const where: SQL[] = [eq(rows.jobId, jobId), eq(rows.reviewBucket, bucket), ...(scope.where ?? [])];
  // Applied, skipped and rolled-back rows need no attention (unless a bucket is asked for).
  if (query.bucket === undefined)
    where.push(inArray(rows.status, [...(scope.statuses ?? ["pending", "failed"])]));
  if (cursor !== undefined && b === cursor.bucket) {
    where.push(sql`(${rows.confidence}, ${rows.seq}) > (${cursor.confidence}, ${cursor.seq})`);
  }
  if (query.reason !== undefined) where.push(reasonFilter(query.reason));
  return where;
}

/**
 * One page of the review queue, highest priority first: rows needing attention (blocked, conflict,
 * needs_review; pending or failed), or every row of one bucket. A malformed cursor, or one of another list,
 * throws CURSOR_INVALID; `limit` is capped at the one maximum of every list.
 */
export async function queuePage(
  res: ReviewResources,
  jobId: string,
  query: ReviewQueueQuery = {},
  scope: QueueScope = {},
): Promise<ReviewQueuePage> {
  const cursor = queueCursor(query.cursor);
  const job = await requireManifestJob(res.db, jobId);
  const limit = pageLimit(query.limit, QUEUE_DEFAULT_LIMIT);
  const buckets = query.bucket === undefined ? QUEUE_BUCKETS : [query.bucket];
  const found: RowRecord[] = [];
  for (const bucket of buckets) {
    if (cursor !== undefined && REVIEW_BUCKETS.indexOf(bucket) < cursor.bucket) continue;
    const page = await res.db
      .select()
      .from(rows)
      .where(and(...bucketWhere(jobId, bucket, query, cursor, scope)))
      .orderBy(asc(rows.confidence), asc(rows.seq))
      .limit(limit + 1 - found.length);
    found.push(...page);
    if (found.length > limit) break;
  }
  const items = found.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: await toQueueRows(res, job, items),
    next_cursor: found.length > limit && last !== undefined ? cursorOf(last) : null,
    revision: job.revision ?? 0,
    summary: await summaryOf(res, jobId, job),
  };
}
