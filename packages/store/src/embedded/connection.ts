import { createRequire } from "node:module";
import type { InStatement, InValue, ResultSet, Row } from "@libsql/client";
import { driver } from "../driver.js";

/**
 * One connection of the embedded driver (`libsql`, the native SQLite binding `@libsql/client` itself runs on)
 * with its prepared statements kept: a statement the engines send again and again is prepared once per
 * connection, its kind (reads rows or not) and columns read once, instead of on every call.
 */

/** The part of `libsql`'s synchronous statement this module uses. */
interface NativeStatement {
  readonly reader: boolean;
  raw(on?: boolean): NativeStatement;
  safeIntegers(on?: boolean): NativeStatement;
  columns(): Array<{ name: string; type: string | null }>;
  run(args: NativeArgs): { changes: number; lastInsertRowid: number };
  all(args: NativeArgs): unknown[];
}

/** The part of `libsql`'s synchronous connection this module uses. */
export interface NativeDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}

type NativeValue = null | string | number | bigint | Uint8Array;
type NativeArgs = NativeValue[] | Record<string, NativeValue>;

interface NativeModule {
  Database: new (path: string, options: { timeout?: number }) => NativeDatabase;
  SqliteError: new (...args: never[]) => Error & { code: string; rawCode?: number };
  /** `libsql/promise`'s `exec`: runs on the driver's own threads, so a COMMIT's fsync leaves the event loop free. */
  execOffThread: (db: NativeDatabase, sql: string) => Promise<void>;
  LibsqlError: typeof import("@libsql/client").LibsqlError;
  LibsqlBatchError: typeof import("@libsql/client").LibsqlBatchError;
}

let native: NativeModule | undefined;

/**
 * `libsql` as `@libsql/client` resolves it (one copy of the native module in the process), loaded with the
 * first embedded connection.
 */
export function nativeModule(): NativeModule {
  if (native !== undefined) return native;
  const fromHere = createRequire(import.meta.url);
  const client = driver();
  const fromClient = createRequire(fromHere.resolve("@libsql/client"));
  const Database = fromClient("libsql") as NativeModule["Database"] & {
    SqliteError: NativeModule["SqliteError"];
  };
  const promised = fromClient("libsql/promise") as {
    prototype: { exec(this: { db: unknown }, sql: string): Promise<void> };
  };
  const exec = promised.prototype.exec;
  native = {
    Database,
    SqliteError: Database.SqliteError,
    // Both classes keep their native handle in `db`: the asynchronous `exec` runs on the synchronous
    // connection's handle, which the driver guards with its own lock.
    execOffThread: (db, sql) => exec.call(db as unknown as { db: unknown }, sql),
    LibsqlError: client.LibsqlError,
    LibsqlBatchError: client.LibsqlBatchError,
  };
  return native;
}

const BASE_CODES: Record<number, string> = {
  1: "SQLITE_ERROR",
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  12: "SQLITE_NOTFOUND",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  16: "SQLITE_EMPTY",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  24: "SQLITE_FORMAT",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
  27: "SQLITE_NOTICE",
  28: "SQLITE_WARNING",
};

/** The driver's error as `@libsql/client` reports it (`LibsqlError`, base code in `code`, extended code kept). */
export function toLibsqlError(err: unknown): unknown {
  const m = nativeModule();
  if (!(err instanceof m.SqliteError)) return err;
  const raw = err.rawCode;
  const code =
    raw === undefined ? "SQLITE_UNKNOWN" : (BASE_CODES[raw & 0xff] ?? `SQLITE_UNKNOWN_${raw & 0xff}`);
  return new m.LibsqlError(err.message, code, err.code, raw, err);
}

/** A prepared statement with what is known about it once. */
interface Prepared {
  stmt: NativeStatement;
  reader: boolean;
  columns: string[];
  columnTypes: string[];
}

/** Statements kept per connection at most (oldest dropped first): Drizzle's `IN (…)` lists vary in length. */
const STATEMENTS_KEPT = 500;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;

class ResultSetOf implements ResultSet {
  constructor(
    readonly columns: string[],
    readonly columnTypes: string[],
    readonly rows: Row[],
    readonly rowsAffected: number,
    readonly lastInsertRowid: bigint | undefined,
  ) {}

  toJSON(): unknown {
    const json = (v: unknown) =>
      typeof v === "bigint" ? `${v}` : v instanceof ArrayBuffer ? Buffer.from(v).toString("base64") : v;
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) => Array.prototype.map.call(row, json)),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid === undefined ? null : `${this.lastInsertRowid}`,
    };
  }
}

function toNative(value: InValue): NativeValue {
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new RangeError("Only finite numbers (not Infinity or NaN) can be passed as arguments");
    return value;
  }
  if (typeof value === "bigint") {
    if (value < MIN_I64 || value > MAX_I64)
      throw new RangeError(
        "bigint is too large to be represented as a 64-bit integer and passed as argument",
      );
    return value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError("undefined cannot be passed as argument to the database");
  return value;
}

function fromNative(value: unknown): unknown {
  if (typeof value === "bigint") {
    if (value < MIN_SAFE || value > MAX_SAFE)
      throw new RangeError("Received integer which cannot be safely represented as a JavaScript number");
    return Number(value);
  }
  if (value instanceof Buffer)
    return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  return value;
}

/** A row as `@libsql/client` shapes it: values by index (not enumerable) and by column name (enumerable). */
function toRow(values: unknown[], columns: string[]): Row {
  const row: Record<string, unknown> = {};
  Object.defineProperty(row, "length", { value: values.length });
  for (let i = 0; i < values.length; i++) {
    const value = fromNative(values[i]);
    Object.defineProperty(row, i, { value });
    const column = columns[i];
    if (column !== undefined && !Object.hasOwn(row, column)) row[column] = value;
  }
  return row as Row;
}

function argsOf(stmt: InStatement): NativeArgs {
  if (typeof stmt === "string") return [];
  const args = stmt.args;
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(toNative);
  const named: Record<string, NativeValue> = {};
  for (const name of Object.keys(args)) {
    const key = name[0] === "@" || name[0] === "$" || name[0] === ":" ? name.slice(1) : name;
    named[key] = toNative(args[name] as InValue);
  }
  return named;
}

/** A connection of the embedded driver and its kept statements. */
export class EmbeddedConnection {
  readonly #statements = new Map<string, Prepared>();

  constructor(readonly db: NativeDatabase) {}

  #prepare(sql: string): Prepared {
    const kept = this.#statements.get(sql);
    if (kept !== undefined) return kept;
    const stmt = this.db.prepare(sql);
    stmt.safeIntegers(true);
    const reader = stmt.reader;
    let columns: string[] = [];
    let columnTypes: string[] = [];
    if (reader) {
      stmt.raw(true);
      const defs = stmt.columns();
      columns = defs.map((c) => c.name);
      columnTypes = defs.map((c) => c.type ?? "");
    }
    const prepared = { stmt, reader, columns, columnTypes };
    if (this.#statements.size >= STATEMENTS_KEPT) {
      const oldest = this.#statements.keys().next();
      if (oldest.done !== true) this.#statements.delete(oldest.value);
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }

  /** Runs one statement; a failed one is not kept (its state after the error is the driver's). */
  execute(stmt: InStatement): ResultSet {
    const sql = typeof stmt === "string" ? stmt : stmt.sql;
    try {
      const args = argsOf(stmt);
      const p = this.#prepare(sql);
      if (p.reader) {
        const rows = (p.stmt.all(args) as unknown[][]).map((values) => toRow(values, p.columns));
        return new ResultSetOf(p.columns, p.columnTypes, rows, 0, undefined);
      }
      const info = p.stmt.run(args);
      return new ResultSetOf([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (err) {
      this.#statements.delete(sql);
      throw toLibsqlError(err);
    }
  }

  /** Runs a script of statements (no results). */
  executeMultiple(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (err) {
      throw toLibsqlError(err);
    }
  }

  /** Runs `sql` (a COMMIT, a long script) on the driver's threads: the event loop goes on meanwhile. */
  async executeOffThread(sql: string): Promise<void> {
    try {
      await nativeModule().execOffThread(this.db, sql);
    } catch (err) {
      throw toLibsqlError(err);
    }
  }

  close(): void {
    this.#statements.clear();
    try {
      if (this.db.open) this.db.close();
    } catch {
      // nothing useful to do while tearing down
    }
  }
}
