/**
 * The Drizzle types the public declarations of the Vetted packages name, as small adapter types of our own.
 *
 * Drizzle's own declarations do not compile under `skipLibCheck: false` (errors in its MySQL, SingleStore,
 * Gel and Postgres parts, missing optional drivers), and any import of them brings them all in. So the
 * published `.d.ts` of @vetted/store, @vetted/fileorg, @vetted/runs and @vetted/cli import these instead
 * (`tools/public-dts.ts` rewrites the imports after each build); the sources and the workspace keep using
 * Drizzle's. A handle is opaque here: pass the `db` of `openDatabase` to the engines; a Drizzle LibSQL
 * database of your own fits too.
 */

/** A Drizzle transaction (opaque). */
export interface SQLiteTransaction {
  rollback(): never;
}

/** A Drizzle LibSQL database (`drizzle(client)` of `drizzle-orm/libsql`), opaque but for `transaction`. */
export interface LibSQLDatabase {
  transaction<T>(transaction: (tx: SQLiteTransaction) => Promise<T>, config?: unknown): Promise<T>;
}

/** A Drizzle SQLite database of any driver (opaque). */
export interface BaseSQLiteDatabase<_Kind = unknown, _Result = unknown, _Schema = unknown>
  extends LibSQLDatabase {}

/** A column of a Drizzle SQLite table: its configuration (`data`, `notNull` …). */
export interface SQLiteColumn<
  T extends { data: unknown; notNull: boolean },
  _Runtime = unknown,
  _Extra = unknown,
> {
  readonly _: T;
}

/** The row a column holds: its data, or null when the column may be null. */
type ColumnData<C> =
  C extends SQLiteColumn<infer T> ? (T["notNull"] extends true ? T["data"] : T["data"] | null) : never;

/** A Drizzle SQLite table: its columns, and the row types Drizzle infers from them. */
export type SQLiteTableWithColumns<T extends { name: string; columns: Record<string, unknown> }> =
  T["columns"] & {
    readonly $inferSelect: { [K in keyof T["columns"]]: ColumnData<T["columns"][K]> };
  };
