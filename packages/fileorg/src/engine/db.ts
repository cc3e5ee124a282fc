import type { ResultSet } from "@libsql/client";
import { type SQL, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { BaseSQLiteDatabase, SQLiteColumn } from "drizzle-orm/sqlite-core";

/** The Drizzle database the engine is given. */
export type Database = LibSQLDatabase;
/** A database or a transaction: what queries run against. */
export type Queryable = BaseSQLiteDatabase<"async", ResultSet, Record<string, never>>;

/** Splits `items` into chunks of at most `size` (SQLite bounds the number of bound parameters). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `column IN (values)` with the values bound as one JSON parameter (`IN (SELECT value FROM json_each(?))`):
 * one short statement whatever the count — no statement of hundreds of parameters to build, bind and
 * prepare for each group — and SQLite still looks each value up through the column's index.
 */
export function inList(column: SQLiteColumn, values: readonly (string | number)[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
