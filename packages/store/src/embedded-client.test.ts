import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Client,
  createClient,
  type InStatement,
  LibsqlBatchError,
  type LibsqlError,
} from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabaseClient } from "./database.js";
import { loadDriver } from "./driver.js";
import { EmbeddedClient, OFF_THREAD_SCRIPT_CHARS } from "./embedded/client.js";

// The ES module copy of @libsql/client this file imports, as openDatabase would load it.
await loadDriver();

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "vetted-embedded-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "test.db");
}

function both(): { ours: Client; theirs: Client } {
  const ours = new EmbeddedClient(tempFile());
  const theirs = createClient({ url: `file:${tempFile()}` });
  cleanups.push(
    () => ours.close(),
    () => theirs.close(),
  );
  return { ours, theirs };
}

/** How many turns the event loop took while `work` (started at once) ran. */
async function loopTurnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let turning = true;
  const turn = () => {
    turns++;
    if (turning) setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
  } finally {
    turning = false;
  }
  return turns;
}

/** What a result says, in a form `toEqual` compares fully (rows by index and by name, as Drizzle reads them). */
async function outcome(client: Client, stmt: InStatement): Promise<unknown> {
  try {
    const r = await client.execute(stmt);
    return {
      columns: r.columns,
      columnTypes: r.columnTypes,
      byIndex: r.rows.map((row) => Array.prototype.slice.call(row)),
      byName: r.rows.map((row) => ({ ...row })),
      keys: r.rows.map((row) => Object.keys(row)),
      rowsAffected: r.rowsAffected,
      lastInsertRowid: r.lastInsertRowid,
      json: r.toJSON(),
    };
  } catch (err) {
    const e = err as LibsqlError;
    return { error: e.constructor.name, code: e.code, extendedCode: e.extendedCode, rawCode: e.rawCode };
  }
}

const SCRIPT: InStatement[] = [
  "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, n INTEGER, f REAL, b BLOB)",
  {
    sql: "INSERT INTO t (name, n, f, b) VALUES (?, ?, ?, ?)",
    args: ["a", 1, 1.5, new Uint8Array([1, 2, 3])],
  },
  { sql: "INSERT INTO t (name, n, f, b) VALUES (?, ?, ?, ?)", args: ["b", 2n ** 40n, -0.25, null] },
  { sql: "INSERT INTO t (name, n) VALUES (:name, $n)", args: { name: "c", $n: true } },
  { sql: "INSERT INTO t (name, n, f, b) VALUES (?, ?, ?, ?)", args: ["a", 9, 0, null] }, // UNIQUE fails
  "SELECT id, name, n, f, b FROM t ORDER BY id",
  "SELECT name AS x, n AS x FROM t ORDER BY id", // a repeated column name: by index both, by name the first
  { sql: "UPDATE t SET n = n + 1 WHERE name IN (?, ?)", args: ["a", "c"] },
  { sql: "UPDATE t SET n = n + 1 WHERE name IN (?, ?)", args: ["a", "c"] },
  { sql: "UPDATE t SET n = ? WHERE name = 'a' RETURNING id, n", args: [2 ** 53 + 2] },
  "SELECT n FROM t WHERE name = 'a'", // beyond a safe integer: a RangeError, as with @libsql/client
  "SELECT * FROM missing",
  "SELECT length(b) AS len, typeof(b) AS kind FROM t ORDER BY id",
  "DELETE FROM t WHERE name = 'b'",
];

describe("EmbeddedClient", () => {
  it("answers every statement as @libsql/client's file client does, on the second run too (prepared)", async () => {
    const { ours, theirs } = both();
    for (const round of [1, 2]) {
      if (round === 2) for (const c of [ours, theirs]) await c.execute("DROP TABLE t");
      for (const stmt of SCRIPT) {
        const [a, b] = [await outcome(ours, stmt), await outcome(theirs, stmt)];
        expect(a, `${round}: ${typeof stmt === "string" ? stmt : stmt.sql}`).toEqual(b);
      }
    }
  });

  it("keeps a transaction usable after a failed statement, names a failed batch statement, and rolls back", async () => {
    const { ours, theirs } = both();
    for (const client of [ours, theirs]) {
      await client.execute("CREATE TABLE t (name TEXT UNIQUE)");
      const tx = await client.transaction("write");
      await tx.execute({ sql: "INSERT INTO t VALUES (?)", args: ["a"] });
      await expect(tx.execute({ sql: "INSERT INTO t VALUES (?)", args: ["a"] })).rejects.toMatchObject({
        code: "SQLITE_CONSTRAINT",
      });
      await tx.execute({ sql: "INSERT INTO t VALUES (?)", args: ["b"] });
      await tx.commit();
      expect(tx.closed).toBe(true);
      const failing = client.batch([
        { sql: "INSERT INTO t VALUES (?)", args: ["c"] },
        { sql: "INSERT INTO t VALUES (?)", args: ["a"] },
      ]);
      await expect(failing).rejects.toBeInstanceOf(LibsqlBatchError);
      await expect(failing).rejects.toMatchObject({ statementIndex: 1 });
      const undone = await client.transaction("write");
      await undone.execute({ sql: "INSERT INTO t VALUES (?)", args: ["d"] });
      await undone.rollback();
      const names = await client.execute("SELECT name FROM t ORDER BY name");
      expect(names.rows.map((r) => r.name)).toEqual(["a", "b"]);
    }
  });

  it("lets the event loop run while a COMMIT is made durable", async () => {
    const ours = new EmbeddedClient(tempFile());
    cleanups.push(() => ours.close());
    await ours.execute("CREATE TABLE big (body BLOB)");
    const tx = await ours.transaction("write");
    // Enough pages that writing and syncing them takes a while.
    for (let i = 0; i < 64; i++)
      await tx.execute({ sql: "INSERT INTO big VALUES (?)", args: [new Uint8Array(64 * 1024)] });
    const turns = await loopTurnsDuring(() => tx.commit());
    // A COMMIT run on the event loop's thread returns before any turn of the loop can happen.
    expect(turns).toBeGreaterThan(0);
    const n = await ours.execute("SELECT count(*) AS n FROM big");
    expect(n.rows[0]?.n).toBe(64);
  });

  it("lets the event loop run while a long script of a transaction runs, and keeps its work (a failing one stops)", async () => {
    const ours = new EmbeddedClient(tempFile());
    cleanups.push(() => ours.close());
    await ours.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, body TEXT)");
    await ours.execute("CREATE INDEX t_body ON t (body)");
    // A bulk insert carrying its values inline, as long as OFF_THREAD_SCRIPT_CHARS or more.
    const values = JSON.stringify(Array.from({ length: 4000 }, (_, i) => [i, `it's row ${i}`]));
    const script = `INSERT INTO t SELECT value ->> 0, value ->> 1 FROM json_each('${values.replaceAll("'", "''")}');
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 29999)
      INSERT INTO t SELECT 4000 + i, hex(randomblob(64)) FROM n`;
    expect(script.length).toBeGreaterThanOrEqual(OFF_THREAD_SCRIPT_CHARS);
    const tx = await ours.transaction("write");
    const turns = await loopTurnsDuring(() => {
      const running = tx.executeMultiple(script);
      // Asked while the script holds the connection, the transaction answers at once, open.
      expect(tx.closed).toBe(false);
      return running;
    });
    // A script run on the event loop's thread returns before any turn of the loop can happen.
    expect(turns).toBeGreaterThan(1);
    await expect(
      tx.executeMultiple(`INSERT INTO t VALUES (0, 'again'); -- ${"x".repeat(OFF_THREAD_SCRIPT_CHARS)}`),
    ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    await tx.commit();
    const n = await ours.execute("SELECT count(*) AS n, max(x) AS top FROM t WHERE body LIKE 'it''s row %'");
    expect(n.rows[0]).toMatchObject({ n: 4000, top: 3999 });
    expect((await ours.execute("SELECT count(*) AS n FROM t")).rows[0]?.n).toBe(34_000);
  });

  it("is what createDatabaseClient uses for a plain file: URL, and falls back to @libsql/client otherwise", async () => {
    const file = tempFile();
    for (const url of [`file:${file}`, `file://${file}`, `file://localhost${file}`]) {
      const client = createDatabaseClient({ url });
      await client.execute("CREATE TABLE IF NOT EXISTS t (x)");
      await client.execute({ sql: "INSERT INTO t VALUES (?)", args: [url] });
      client.close();
    }
    const check = createClient({ url: `file:${file}` });
    cleanups.push(() => check.close());
    expect((await check.execute("SELECT count(*) AS n FROM t")).rows[0]?.n).toBe(3);
    const memory = createDatabaseClient({ url: "file::memory:" });
    cleanups.push(() => memory.close());
    expect((await memory.execute("SELECT 1 AS one")).rows[0]?.one).toBe(1);
    // A file that cannot be opened fails at once, with the driver's own error as @libsql/client's does.
    const missing = join(file, "no", "such", "dir.db");
    expect(() => new EmbeddedClient(missing)).toThrow(/Unable to open connection/);
    expect(() => createClient({ url: `file:${missing}` })).toThrow(/Unable to open connection/);
  });
});
