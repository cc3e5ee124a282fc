import type { RowRecord } from "./rows.js";

/** The status a row returns to when its changed source is re-read (`keep_both` on `source_changed`). */
export function refreshedRowStatus(from: RowRecord["status"]): RowRecord["status"] {
  return from === "failed" ? "pending" : from;
}
