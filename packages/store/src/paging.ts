/** The most items one page of any list returns. */
export const MAX_PAGE_LIMIT = 500;
/** The page size when a request names none. */
export const DEFAULT_PAGE_LIMIT = 50;

/** One page of a keyset-paginated list, as every list answers. */
export interface KeysetPage<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * Turns the rows of a keyset query that asked for `limit + 1` rows into a page: the extra row is never
 * returned, it only says that there is more after the last item.
 */
export function toKeysetPage<R, T>(
  found: readonly R[],
  limit: number,
  toItem: (row: R) => T,
  cursorOf: (last: R) => string,
): KeysetPage<T> {
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toItem),
    next_cursor: found.length > limit && last !== undefined ? cursorOf(last) : null,
  };
}
