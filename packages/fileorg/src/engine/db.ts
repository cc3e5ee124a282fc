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

const queues = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `fn` in a write transaction, one at a time per database handle. The local libsql driver is
 * synchronous: a second in-process BEGIN IMMEDIATE busy-waits on the event loop the first one needs to
 * finish, so in-process transactions must queue instead of overlapping.
 */
export function runTransaction<T>(
  db: Database,
  fn: (tx: Parameters<Parameters<Database["transaction"]>[0]>[0]) => Promise<T>,
): Promise<T> {
  const previous = queues.get(db) ?? Promise.resolve();
  const run = previous.then(() => db.transaction(fn));
  queues.set(
    db,
    run.then(
      () => undefined,
      () => undefined,
    ),
  );
  return run;
}
