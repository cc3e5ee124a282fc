import {
  DEFAULT_PAGE_LIMIT,
  decodeCursor,
  encodeCursor,
  type KeysetPage,
  MAX_PAGE_LIMIT,
  toKeysetPage,
} from "@vetted/store";
import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { cuSessions, flows, runs, sessions, templates } from "../store/schema.js";

/** A list query: every runs list pages the same way (`@vetted/store` keyset cursors). */
export interface ListQuery {
  /** A `next_cursor` this list returned; anything else throws `CURSOR_INVALID`. */
  cursor?: string | undefined;
  /** Page size: default `DEFAULT_PAGE_LIMIT` (50), capped at `MAX_PAGE_LIMIT` (500). */
  limit?: number | undefined;
}

/** The page size of a query: the default when absent, capped at the one maximum. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_LIMIT;
  return Math.max(1, Math.min(MAX_PAGE_LIMIT, Math.floor(limit)));
}

type NewestFirstTable = typeof flows | typeof templates | typeof runs | typeof sessions | typeof cuSessions;

/** Rows strictly after the cursor of a newest-first list (`created_at` desc, `id` desc). @throws CURSOR_INVALID */
export function newestFirstAfter(table: NewestFirstTable, list: string, cursor?: string): SQL | undefined {
  if (cursor === undefined) return undefined;
  const [createdAt, id] = decodeCursor(cursor, list, ["integer", "string"]);
  return or(
    lt(table.createdAt, Number(createdAt)),
    and(eq(table.createdAt, Number(createdAt)), lt(table.id, String(id))),
  );
}

/** The page of a newest-first list from `limit + 1` rows. */
export function newestFirstPage<R extends { createdAt: number; id: string }, T>(
  rows: readonly R[],
  limit: number,
  list: string,
  view: (row: R) => T,
): KeysetPage<T> {
  return toKeysetPage(rows, limit, view, (last) => encodeCursor(list, [last.createdAt, last.id]));
}
