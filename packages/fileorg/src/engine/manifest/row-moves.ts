import { moveRow } from "../../domain/transitions.js";
import type { RowRecord } from "./rows.js";

/**
 * The status a row returns to when its changed source is re-read (`keep_both` on `source_changed`): a
 * failed row moves back to `pending` through the row table; any other row keeps its status.
 */
export function refreshedRowStatus(from: RowRecord["status"], rowId?: string): RowRecord["status"] {
  return from === "failed" ? moveRow(from, "pending", rowId) : from;
}
