import {
  type CursorPart,
  type CursorShape,
  DEFAULT_PAGE_LIMIT,
  decodeCursor,
  MAX_PAGE_LIMIT,
} from "@vetted/store";

/**
 * The page size of a list: the asked `limit` (at least 1), or the list's default, never more than the one
 * documented maximum ({@link MAX_PAGE_LIMIT}).
 */
export function pageLimit(limit: number | undefined, fallback: number = DEFAULT_PAGE_LIMIT): number {
  const asked = limit === undefined || !Number.isFinite(limit) ? fallback : Math.trunc(limit);
  return Math.min(Math.max(asked, 1), MAX_PAGE_LIMIT);
}

/**
 * The sort key a cursor of `list` carries, or `undefined` for the first page (no cursor, or an empty one).
 * A malformed cursor, or one another list made, throws `CURSOR_INVALID`.
 */
export function cursorKey(
  cursor: string | undefined,
  list: string,
  shape: CursorShape,
): CursorPart[] | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  return decodeCursor(cursor, list, shape);
}
