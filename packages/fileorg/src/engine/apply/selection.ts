import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import { type ApplyPlan, type ApplyRowGroup, tallyApplyPlan } from "../../domain/apply-plan.js";
import { APPLY_BUCKETS, type ApplyBucket, isApplyBucket } from "../../domain/job.js";
import { ROW_TRANSITIONS, sourcesOf } from "../../domain/transitions.js";
import { rows } from "../../store/schema.js";
import type { Queryable } from "../db.js";

/** Statuses of rows that apply (re)attempts: every status the row table lets move to `applied`. */
export const APPLICABLE_STATUSES = sourcesOf(ROW_TRANSITIONS, "applied");

/** What an apply request names: buckets and/or row ids; neither is the default selection. */
export interface ApplyNames {
  buckets?: readonly ApplyBucket[] | undefined;
  rowIds?: readonly string[] | undefined;
}

/** The names of an apply job's parameters (`buckets`, `row_ids`). */
export function namesOf(params: Record<string, unknown>): ApplyNames {
  const buckets = Array.isArray(params.buckets) ? params.buckets.filter(isApplyBucket) : [];
  const rowIds = Array.isArray(params.row_ids) ? params.row_ids.map(String) : [];
  return {
    ...(buckets.length > 0 ? { buckets } : {}),
    ...(rowIds.length > 0 ? { rowIds } : {}),
  };
}

/** True when the request names neither buckets nor rows. */
function isDefault(names: ApplyNames): boolean {
  return (names.buckets?.length ?? 0) === 0 && (names.rowIds?.length ?? 0) === 0;
}

/**
 * The rows a request selects (before the rules every apply keeps): by default the `auto_safe` rows and the
 * rows a person edited (an approved row is `auto_safe`); else the named buckets and the named rows.
 */
function selectedCondition(names: ApplyNames): SQL {
  if (isDefault(names)) return or(eq(rows.reviewBucket, "auto_safe"), eq(rows.edited, true)) ?? sql`0`;
  const parts: SQL[] = [];
  if (names.buckets !== undefined && names.buckets.length > 0)
    parts.push(inArray(rows.reviewBucket, [...names.buckets]));
  if (names.rowIds !== undefined && names.rowIds.length > 0)
    parts.push(sql`${rows.id} IN (SELECT value FROM json_each(${JSON.stringify(names.rowIds)}))`);
  return or(...parts) ?? sql`0`;
}

/** The rows of the manifest an apply moves: selected, `action: move`, never blocked or in conflict, not applied. */
export function eligibleRows(manifestId: string, names: ApplyNames): SQL | undefined {
  return and(
    eq(rows.jobId, manifestId),
    eq(rows.action, "move"),
    inArray(rows.reviewBucket, [...APPLY_BUCKETS]),
    inArray(rows.status, APPLICABLE_STATUSES),
    selectedCondition(names),
  );
}

/**
 * What an apply of the manifest with these names moves and leaves, by bucket: one `GROUP BY` over the
 * manifest (no file is read), tallied by the pure {@link tallyApplyPlan}. The row fate it tallies agrees
 * with {@link eligibleRows} (a test checks the counts against the rows moved).
 */
export async function tallyManifest(
  db: Queryable,
  manifestId: string,
  names: ApplyNames,
): Promise<Omit<ApplyPlan, "job_id" | "plan_hash">> {
  const selected = sql<number>`CASE WHEN ${selectedCondition(names)} THEN 1 ELSE 0 END`;
  const found = await db
    .select({
      bucket: rows.reviewBucket,
      action: rows.action,
      status: rows.status,
      edited: rows.edited,
      selected,
      n: sql<number>`count(*)`,
    })
    .from(rows)
    .where(eq(rows.jobId, manifestId))
    .groupBy(rows.reviewBucket, rows.action, rows.status, rows.edited, selected);
  const groups: ApplyRowGroup[] = found.map((g) => ({
    bucket: g.bucket,
    action: g.action,
    status: g.status,
    edited: Boolean(g.edited),
    selected: Number(g.selected) === 1,
    count: Number(g.n),
  }));
  return {
    selection: {
      default: isDefault(names),
      buckets: [...(names.buckets ?? [])],
      row_ids: names.rowIds?.length ?? 0,
    },
    ...tallyApplyPlan(groups),
  };
}
