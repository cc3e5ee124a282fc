import { FileorgError } from "../../errors.js";
import type { Queryable } from "../db.js";
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
