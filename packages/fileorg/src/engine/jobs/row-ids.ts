import { and, eq, inArray } from "drizzle-orm";
import { FileorgError } from "../../errors.js";
import { rows } from "../../store/schema.js";
import { chunk, type Queryable } from "../db.js";
import { loadRows } from "../manifest/index.js";

/** How many unknown ids an error message names (all of them are in `details.row_ids`). */
const NAMED_IN_MESSAGE = 10;

/**
 * Throws UNKNOWN_ROW_IDS (HTTP 400) naming every id in `rowIds` that is not a row of the manifest — a
 * rollback of some rows must say which rows it means, not silently do nothing for a typo.
 */
export async function assertRowsOfManifest(
  db: Queryable,
  manifestJobId: string,
  rowIds: readonly string[],
): Promise<void> {
  const known = new Set((await loadRows(db, manifestJobId, rowIds)).map((r) => r.id));
  const unknown = [...new Set(rowIds)].filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  const named = unknown.slice(0, NAMED_IN_MESSAGE).join(", ");
  const more = unknown.length > NAMED_IN_MESSAGE ? ` and ${unknown.length - NAMED_IN_MESSAGE} more` : "";
  throw new FileorgError(
    "UNKNOWN_ROW_IDS",
    `${unknown.length === 1 ? "Row" : "Rows"} ${named}${more} ${unknown.length === 1 ? "is" : "are"} not in the manifest of ${manifestJobId}; list rows with GET /api/jobs/${manifestJobId}/manifest.`,
    { row_ids: unknown, manifest_job_id: manifestJobId },
  );
}

/**
 * The ids with every row of the units they belong to: a unit is rolled back (and applied) whole, so naming
 * one of its rows names all of them. Ids outside units are kept as given, in order.
 */
export async function withWholeUnits(
  db: Queryable,
  manifestJobId: string,
  rowIds: readonly string[],
): Promise<string[]> {
  const named = await loadRows(db, manifestJobId, rowIds);
  const unitIds = [...new Set(named.flatMap((r) => (r.unitId === null ? [] : [r.unitId])))];
  if (unitIds.length === 0) return [...rowIds];
  const out = new Set(rowIds);
  for (const part of chunk(unitIds, 500)) {
    const members = await db
      .select({ id: rows.id })
      .from(rows)
      .where(and(eq(rows.jobId, manifestJobId), inArray(rows.unitId, part)));
    for (const m of members) out.add(m.id);
  }
  return [...out];
}
