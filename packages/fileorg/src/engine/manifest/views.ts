import { encodeCursor, toKeysetPage } from "@vetted/store";
import { and, asc, eq, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Conflict } from "../../domain/conflict.js";
import type { ManifestFilter, ManifestPage, ManifestRow } from "../../domain/manifest.js";
import { conflicts, rows } from "../../store/schema.js";
import type { Queryable } from "../db.js";
import { cursorKey, pageLimit } from "../query-kit.js";
import type { JobRecord } from "../records.js";
import { afterCursor, cursorAfter, orderByOf, type RowSort, rowOrder } from "./row-order.js";
import { planHashOfJob, type RowRecord, requireManifestJob, toManifestRow } from "./rows.js";
import type { TextSearch } from "./text-search.js";

/** The list name a manifest-rows cursor is bound to (a cursor of another list is CURSOR_INVALID). */
export const MANIFEST_ROWS_LIST = "fileorg.manifest-rows";
/** The list name a conflicts cursor is bound to. */
export const CONFLICTS_LIST = "fileorg.conflicts";
/** The page size of a manifest listing that names none. */
const ROWS_DEFAULT_LIMIT = 100;
/** The page size of a conflicts listing that names none. */
const CONFLICTS_DEFAULT_LIMIT = 200;

/** Options of a manifest listing. */
export interface ListRowsOptions extends ManifestFilter {
  cursor?: string | undefined;
  limit?: number | undefined;
  /** Restrict to these rows. */
  rowIds?: readonly string[] | undefined;
  /** Only rows carrying this reason code. */
  reason?: string | undefined;
  /** Only rows in one of these buckets / statuses (a scope, e.g. the review queue's). */
  buckets?: readonly ManifestRow["review_bucket"][] | undefined;
  statuses?: readonly ManifestRow["status"][] | undefined;
  /** Sort keys (a saved view's); absent or empty: analyze order. Cursors are bound to the order. */
  sort?: readonly RowSort[] | undefined;
}

/** Rows carrying `reason` among their reason codes. */
export function reasonCodeFilter(reason: string): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${rows.reasonCodes}) WHERE value = ${reason})`;
}

/** A `LIKE` condition matching `text` anywhere in the source or the target path. */
export function pathTextFilter(text: string): SQL | undefined {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return or(
    sql`${rows.sourcePath} LIKE ${pattern} ESCAPE '\\'`,
    sql`${rows.targetPath} LIKE ${pattern} ESCAPE '\\'`,
  );
}

/** The conditions of a listing's filters (not its cursor). */
export function rowFilters(jobId: string, options: ListRowsOptions): SQL[] {
  const where: SQL[] = [eq(rows.jobId, jobId)];
  if (options.reason !== undefined) where.push(reasonCodeFilter(options.reason));
  if (options.buckets !== undefined) where.push(inArray(rows.reviewBucket, [...options.buckets]));
  if (options.statuses !== undefined) where.push(inArray(rows.status, [...options.statuses]));
  if (options.bucket !== undefined) where.push(eq(rows.reviewBucket, options.bucket));
  if (options.status !== undefined) where.push(eq(rows.status, options.status));
  if (options.category !== undefined) where.push(eq(rows.category, options.category));
  if (options.action !== undefined) where.push(eq(rows.action, options.action));
  if (options.rowIds !== undefined) where.push(inArray(rows.id, [...options.rowIds]));
  if (options.text !== undefined) {
    const cond = pathTextFilter(options.text);
    if (cond !== undefined) where.push(cond);
  }
  return where;
}

/**
 * Reads rows of a manifest by filter and cursor (ordered by analyze order). A malformed cursor, or one of
 * another list, throws CURSOR_INVALID; `limit` is capped at the one maximum of every list. With `search`,
 * a text filter reads only the rows whose paths hold the text in the search copy when one is ready (else
 * it scans), and listing a manifest starts building that copy in the background.
 */
export async function listRows(
  db: Queryable,
  jobId: string,
  options: ListRowsOptions = {},
  search?: TextSearch,
): Promise<ManifestPage> {
  if (options.sort !== undefined && options.sort.length > 0) return listSortedRows(db, jobId, options);
  const after = cursorKey(options.cursor, MANIFEST_ROWS_LIST, ["integer"]);
  const afterSeq = after === undefined ? undefined : Number(after[0]);
  const job = await requireManifestJob(db, jobId);
  search?.warm(db, job);
  const limit = pageLimit(options.limit, ROWS_DEFAULT_LIMIT);
  const found =
    (search === undefined ? undefined : await searchedRows(db, job, options, afterSeq, limit + 1, search)) ??
    (await scannedRows(db, jobId, options, afterSeq, limit + 1));
  return {
    ...toKeysetPage(found, limit, toManifestRow, (last) => encodeCursor(MANIFEST_ROWS_LIST, [last.seq])),
    revision: job.revision ?? 0,
    plan_hash: planHashOfJob(job) ?? "",
  };
}

/** The first `want` rows after `afterSeq` matching every filter, in analyze order, read by a scan. */
async function scannedRows(
  db: Queryable,
  jobId: string,
  options: ListRowsOptions,
  afterSeq: number | undefined,
  want: number,
): Promise<RowRecord[]> {
  const where = rowFilters(jobId, options);
  if (afterSeq !== undefined) where.push(gt(rows.seq, afterSeq));
  return db
    .select()
    .from(rows)
    .where(and(...where))
    .orderBy(asc(rows.seq))
    .limit(want);
}

/** Candidates asked of the search copy at first; each further round asks four times more, up to the cap. */
const FIRST_CANDIDATES = 256;
const MAX_CANDIDATES = 8192;

/**
 * The same rows as {@link scannedRows} for a text filter, read among the search copy's candidates only
 * (every filter, the text's `LIKE` included, still applies to them); `undefined` when there is no text or
 * no ready copy of the manifest's state.
 */
async function searchedRows(
  db: Queryable,
  job: JobRecord,
  options: ListRowsOptions,
  afterSeq: number | undefined,
  want: number,
  search: TextSearch,
): Promise<RowRecord[] | undefined> {
  if (options.text === undefined) return undefined;
  const where = rowFilters(job.id, options);
  const out: RowRecord[] = [];
  let from = afterSeq ?? Number.NEGATIVE_INFINITY;
  let count = Math.max(want, FIRST_CANDIDATES);
  for (;;) {
    const found = search.candidates(job, options.text, from, count);
    if (found === undefined) return undefined;
    if (found.seqs.length > 0) {
      const page = await db
        .select()
        .from(rows)
        .where(
          and(...where, sql`${rows.seq} IN (SELECT value FROM json_each(${JSON.stringify(found.seqs)}))`),
        )
        .orderBy(asc(rows.seq))
        .limit(want - out.length);
      out.push(...page);
    }
    const last = found.seqs.at(-1);
    if (out.length >= want || found.done || last === undefined) return out;
    from = last;
    count = Math.min(count * 4, MAX_CANDIDATES);
  }
}

/**
 * One page of stored rows by filter in the order of `sort` (then analyze order), and the cursor of the
 * next page (bound to the order: a cursor of another order is CURSOR_INVALID).
 */
export async function sortedRowPage(
  db: Queryable,
  jobId: string,
  options: ListRowsOptions & { sort: readonly RowSort[] },
  family: string,
  defaultLimit: number,
): Promise<{ items: RowRecord[]; next_cursor: string | null }> {
  const order = rowOrder(family, options.sort);
  const where = rowFilters(jobId, options);
  const after = afterCursor(order, options.cursor);
  if (after !== undefined) where.push(after);
  const limit = pageLimit(options.limit, defaultLimit);
  const found = await db
    .select()
    .from(rows)
    .where(and(...where))
    .orderBy(...orderByOf(order))
    .limit(limit + 1);
  return toKeysetPage(
    found,
    limit,
    (r) => r,
    (last) => cursorAfter(order, last),
  );
}

async function listSortedRows(db: Queryable, jobId: string, options: ListRowsOptions): Promise<ManifestPage> {
  const job = await requireManifestJob(db, jobId);
  const sort = options.sort ?? [];
  const page = await sortedRowPage(db, jobId, { ...options, sort }, MANIFEST_ROWS_LIST, ROWS_DEFAULT_LIMIT);
  return {
    items: page.items.map(toManifestRow),
    next_cursor: page.next_cursor,
    revision: job.revision ?? 0,
    plan_hash: planHashOfJob(job) ?? "",
  };
}

/** Maps a stored conflict to its public shape. */
export function toConflict(c: typeof conflicts.$inferSelect): Conflict {
  return {
    conflict_id: c.id,
    job_id: c.jobId,
    kind: c.kind,
    key: c.key,
    row_ids: c.rowIds,
    status: c.status,
    resolution: (c.resolution as Conflict["resolution"]) ?? null,
    opened_at: new Date(c.openedAt).toISOString(),
    resolved_at: c.resolvedAt === null ? null : new Date(c.resolvedAt).toISOString(),
    original: c.original ?? null,
  };
}

/** Options of a conflicts listing. */
export interface ListConflictsOptions {
  status?: "open" | "resolved" | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

/**
 * Lists the conflicts of a manifest by id. A malformed cursor, or one of another list, throws
 * CURSOR_INVALID; `limit` is capped at the one maximum of every list.
 */
export async function listConflicts(
  db: Queryable,
  jobId: string,
  options: ListConflictsOptions = {},
): Promise<{ items: Conflict[]; next_cursor: string | null }> {
  const after = cursorKey(options.cursor, CONFLICTS_LIST, ["string"]);
  await requireManifestJob(db, jobId);
  const limit = pageLimit(options.limit, CONFLICTS_DEFAULT_LIMIT);
  const where: SQL[] = [eq(conflicts.jobId, jobId)];
  if (after !== undefined) where.push(gt(conflicts.id, String(after[0])));
  if (options.status !== undefined) where.push(eq(conflicts.status, options.status));
  const found = await db
    .select()
    .from(conflicts)
    .where(and(...where))
    .orderBy(asc(conflicts.id))
    .limit(limit + 1);
  return toKeysetPage(found, limit, toConflict, (last) => encodeCursor(CONFLICTS_LIST, [last.id]));
}
