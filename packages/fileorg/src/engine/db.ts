import type { ResultSet } from "@libsql/client";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";

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
