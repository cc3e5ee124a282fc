import { CursorInvalidError, type CursorShape, encodeCursor } from "@vetted/store";
import { and, asc, desc, eq, gt, lt, or, type SQL, sql } from "drizzle-orm";
import { REVIEW_BUCKETS } from "../../domain/manifest.js";
import type { VIEW_SORT_FIELDS } from "../../domain/preferences.js";
import { rows } from "../../store/schema.js";
import { cursorKey } from "../query-kit.js";
import type { RowRecord } from "./rows.js";

/** A field a listing may be sorted by (a saved view's sort). */
export type RowSortField = (typeof VIEW_SORT_FIELDS)[number];

/** One sort key of a listing: a field and a direction. */
export interface RowSort {
  field: RowSortField;
  direction: "asc" | "desc";
}

/** One column of the order: its SQL, how its cursor part is kept, and its value on a stored row. */
interface OrderKey {
  expr: SQL;
  direction: "asc" | "desc";
  /** `real` values travel in the cursor as their exact decimal text. */
  kind: "integer" | "string" | "real";
  valueOf(r: RowRecord): string | number;
}

/** Buckets by severity (blocked first), as the review queue orders them. */
const bucketRank = sql`(CASE ${rows.reviewBucket} ${sql.join(
  REVIEW_BUCKETS.map((b, i) => sql`WHEN ${b} THEN ${sql.raw(String(i))}`),
  sql` `,
)} ELSE ${sql.raw(String(REVIEW_BUCKETS.length))} END)`;
const rankOf = (r: RowRecord) => REVIEW_BUCKETS.indexOf(r.reviewBucket);

/** The order columns of one sort key (`priority` is two: bucket severity, then confidence). */
function keysOf(s: RowSort): OrderKey[] {
  const d = s.direction;
  switch (s.field) {
    case "source_path":
      return [{ expr: sql`${rows.sourcePath}`, direction: d, kind: "string", valueOf: (r) => r.sourcePath }];
    case "target_path":
      return [{ expr: sql`${rows.targetPath}`, direction: d, kind: "string", valueOf: (r) => r.targetPath }];
    case "size":
      return [{ expr: sql`${rows.size}`, direction: d, kind: "integer", valueOf: (r) => r.size }];
    case "mtime":
      return [{ expr: sql`${rows.mtime}`, direction: d, kind: "integer", valueOf: (r) => r.mtime }];
    case "category":
      return [{ expr: sql`${rows.category}`, direction: d, kind: "string", valueOf: (r) => r.category }];
    case "status":
      return [{ expr: sql`${rows.status}`, direction: d, kind: "string", valueOf: (r) => r.status }];
    case "confidence":
      return [{ expr: sql`${rows.confidence}`, direction: d, kind: "real", valueOf: (r) => r.confidence }];
    case "review_bucket":
      return [{ expr: bucketRank, direction: d, kind: "integer", valueOf: rankOf }];
    case "priority":
      return [
        { expr: bucketRank, direction: d, kind: "integer", valueOf: rankOf },
        { expr: sql`${rows.confidence}`, direction: d, kind: "real", valueOf: (r) => r.confidence },
      ];
  }
}

/** A listing's order: the sort keys, then analyze order (`seq`, ascending) to break ties. */
export interface RowOrder {
  /** The list name cursors of this order are bound to (a cursor of another order is CURSOR_INVALID). */
  list: string;
  keys: OrderKey[];
}

/** The order of `sort` for a list family (`fileorg.manifest-rows`, `fileorg.review-queue`…). */
export function rowOrder(family: string, sort: readonly RowSort[]): RowOrder {
  const keys = sort.flatMap(keysOf);
  keys.push({ expr: sql`${rows.seq}`, direction: "asc", kind: "integer", valueOf: (r) => r.seq });
  const signature = sort.map((s) => `${s.field}:${s.direction}`).join(",");
  return { list: `${family}.sorted:${signature}`, keys };
}

/** ORDER BY terms of an order. */
export function orderByOf(order: RowOrder): SQL[] {
  return order.keys.map((k) => (k.direction === "asc" ? asc(k.expr) : desc(k.expr)));
}

/** The cursor after `last` in this order. */
export function cursorAfter(order: RowOrder, last: RowRecord): string {
  return encodeCursor(
    order.list,
    order.keys.map((k) => (k.kind === "real" ? String(k.valueOf(last)) : k.valueOf(last))),
  );
}

/**
 * The condition "after the cursor's row" in this order (mixed directions: for some key, every earlier key
 * equal and this one past it), or `undefined` for the first page. A cursor of another order, or a
 * malformed one, throws CURSOR_INVALID.
 */
export function afterCursor(order: RowOrder, cursor: string | undefined): SQL | undefined {
  const shape: CursorShape = order.keys.map((k) => (k.kind === "integer" ? "integer" : "string"));
  const parts = cursorKey(cursor, order.list, shape);
  if (parts === undefined) return undefined;
  const values = order.keys.map((k, i) => {
    const part = parts[i];
    if (k.kind !== "real") return part;
    const n = Number(part);
    if (!Number.isFinite(n) || String(n) !== part) throw new CursorInvalidError("not a number");
    return n;
  });
  const branches = order.keys.map((k, i) => {
    const equal = order.keys.slice(0, i).map((e, j) => eq(e.expr, values[j]));
    const past = k.direction === "asc" ? gt(k.expr, values[i]) : lt(k.expr, values[i]);
    return and(...equal, past);
  });
  return or(...branches);
}
