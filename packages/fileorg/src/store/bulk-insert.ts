import { Column, getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/** One column of a bulk insert: its key in the record, its default, and how its value is stored. */
interface BulkColumn {
  key: string;
  column: SQLiteColumn;
  fallback: unknown;
  /** Drizzle's conversion to the stored value; undefined when it stores the value as it is. */
  toDriver: ((value: unknown) => unknown) | undefined;
}

/** Drizzle's own conversion, unless the column keeps the base class's identity (text, integer, real). */
function driverMapping(column: SQLiteColumn): BulkColumn["toDriver"] {
  if (column.mapToDriverValue === Column.prototype.mapToDriverValue) return undefined;
  return (value) => column.mapToDriverValue(value);
}

/** A table's bulk insert: its columns, and the SQL around the records' JSON. */
function bulkShape(table: SQLiteTable) {
  // A generated column is SQLite's to compute: it is never written.
  const columns: BulkColumn[] = Object.entries(getTableColumns(table))
    .filter(([, column]) => column.generated === undefined)
    .map(([key, entry]) => {
      const column = entry as SQLiteColumn;
      return { key, column, fallback: column.default, toDriver: driverMapping(column) };
    });
  const names = columns.map((c) => `"${c.column.name}"`).join(", ");
  const picks = columns.map((_, i) => `r ->> ${i}`).join(", ");
  // Each record's text is materialized once, so the column picks of one record reuse its parse (SQLite's
  // JSON parse cache) instead of parsing the record again for every column: half the CPU of a batch.
  const head = `WITH records AS MATERIALIZED (SELECT value AS r FROM json_each(`;
  const tail = `)) INSERT INTO "${getTableName(table)}" (${names}) SELECT ${picks} FROM records`;
  const json = (records: readonly Record<string, unknown>[]) =>
    JSON.stringify(
      records.map((values) =>
        columns.map(({ key, fallback, toDriver }) => {
          const value = values[key] === undefined ? fallback : values[key];
          if (value === undefined || value === null) return null;
          return toDriver === undefined ? value : toDriver(value);
        }),
      ),
    );
  return { head, tail, json };
}

/**
 * Builds an inserter of many records per statement: the records travel as one JSON array of arrays bound
 * to a single parameter and SQLite unpacks them with `json_each` (`WITH records AS MATERIALIZED (SELECT
 * value AS r FROM json_each(?)) INSERT … SELECT r ->> 0, … FROM records`). One statement per batch, one
 * bound parameter, no per-value binding or per-row query building: what the parameter limit and the query
 * builder make costly for wide rows. Values are converted exactly as Drizzle stores them (booleans as 0/1,
 * JSON columns as text).
 */
export function createBulkInserter<T extends SQLiteTable>(
  table: T,
): (rows: readonly T["$inferInsert"][]) => SQL | undefined {
  const { head, tail, json } = bulkShape(table);
  const before = sql.raw(head);
  const after = sql.raw(tail);
  return (records) => {
    if (records.length === 0) return undefined;
    return sql`${before}${json(records as readonly Record<string, unknown>[])}${after}`;
  };
}

/**
 * The same insert as {@link createBulkInserter}, as one script without parameters: the records' JSON is
 * inline, a single SQL string literal (its quotes doubled, the only escape SQLite's literals have; JSON
 * text holds no raw control character). A script of a transaction runs through `execInTx`, which the
 * embedded client of `@vetted/store` runs on the driver's threads when it is long: SQLite builds the rows
 * and their index entries while the event loop reads the next files.
 */
export function createBulkScript<T extends SQLiteTable>(
  table: T,
): (rows: readonly T["$inferInsert"][]) => string | undefined {
  const { head, tail, json } = bulkShape(table);
  return (records) => {
    if (records.length === 0) return undefined;
    const literal = json(records as readonly Record<string, unknown>[]).replaceAll("'", "''");
    return `${head}'${literal}'${tail}`;
  };
}
