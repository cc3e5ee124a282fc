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

/** A SQL list of string literals (fixed enum values only). */
const literals = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

/** The request's selection of a row `m` of the same unit (raw SQL over the alias `m`). */
function memberSelected(names: ApplyNames): SQL {
  const parts: SQL[] = [];
  if (names.buckets !== undefined && names.buckets.length > 0)
    parts.push(sql.raw(`m.review_bucket IN (${literals(names.buckets)})`));
  if (names.rowIds !== undefined && names.rowIds.length > 0)
    parts.push(sql`m.id IN (SELECT value FROM json_each(${JSON.stringify(names.rowIds)}))`);
  return sql.join(parts, sql` OR `);
}

/**
 * Whether a unit is selected (an aggregate over its rows `m`): by default when every row of it not yet
 * applied is reviewed (`auto_safe` or edited); else when the request names any row of it (by bucket or id).
 */
function unitSelected(names: ApplyNames): SQL {
  if (isDefault(names)) {
    return sql.raw("sum(m.status <> 'applied' AND NOT (m.review_bucket = 'auto_safe' OR m.edited = 1)) = 0");
  }
  return sql`max(${memberSelected(names)}) = 1`;
}

/** Rows of a unit, not yet applied, that cannot move (an aggregate over `m`): the unit then stays whole. */
const UNIT_HELD = sql.raw(
  `sum(m.status <> 'applied' AND NOT (m.action IN ('move', 'trash', 'copy') AND m.review_bucket IN (${literals(APPLY_BUCKETS)}) AND m.status IN (${literals(APPLICABLE_STATUSES)}))) > 0`,
);

/**
 * The units of the manifest that move: selected, and none of their rows must stay. One uncorrelated
 * subquery, so SQLite computes it once per statement (one pass over the unit index), not once per row.
 */
function movingUnits(manifestId: string, names: ApplyNames): SQL {
  return sql`(SELECT m.unit_id FROM fileorg_rows m WHERE m.job_id = ${manifestId} AND m.unit_id IS NOT NULL GROUP BY m.unit_id HAVING (${unitSelected(names)}) AND NOT (${UNIT_HELD}))`;
}

/**
 * The selection with units kept whole: a row outside a unit by the request; a row of a unit when its unit
 * is selected and no row of it must stay (a unit moves whole or not at all).
 */
function wholeSelection(manifestId: string, names: ApplyNames): SQL {
  return sql`(CASE WHEN ${rows.unitId} IS NULL THEN (${selectedCondition(names)}) ELSE ${rows.unitId} IN ${movingUnits(manifestId, names)} END)`;
}

/** The rows of the manifest an apply moves: selected, `action: move`, `trash` or `copy`, never blocked or in conflict, not applied. */
export function eligibleRows(manifestId: string, names: ApplyNames): SQL | undefined {
  return and(
    eq(rows.jobId, manifestId),
    inArray(rows.action, ["move", "trash", "copy"]),
    inArray(rows.reviewBucket, [...APPLY_BUCKETS]),
    inArray(rows.status, APPLICABLE_STATUSES),
    wholeSelection(manifestId, names),
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
  const selected = sql<number>`CASE WHEN ${wholeSelection(manifestId, names)} THEN 1 ELSE 0 END`;
  // A unit row the request selects by itself that stays because its unit stays whole.
  const held = sql<number>`CASE WHEN ${rows.unitId} IS NOT NULL AND (${selectedCondition(names)}) AND NOT ${wholeSelection(manifestId, names)} THEN 1 ELSE 0 END`;
  const found = await db
    .select({
      bucket: rows.reviewBucket,
      action: rows.action,
      status: rows.status,
      edited: rows.edited,
      selected,
      held,
      n: sql<number>`count(*)`,
    })
    .from(rows)
    .where(eq(rows.jobId, manifestId))
    .groupBy(rows.reviewBucket, rows.action, rows.status, rows.edited, selected, held);
  const groups: ApplyRowGroup[] = found.map((g) => ({
    bucket: g.bucket,
    action: g.action,
    status: g.status,
    edited: Boolean(g.edited),
    selected: Number(g.selected) === 1,
    unitHeld: Number(g.held) === 1,
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
