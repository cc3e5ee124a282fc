import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../tools/test-child.js";
import { walCommits } from "../../../tools/wal-commits.js";
import { type DatabaseOptions, type OpenDatabase, openDatabase } from "./database.js";
import { runTransaction } from "./group-commit.js";
import { writeLockFor } from "./write-lock.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "vetted-gc-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function open(options: Partial<DatabaseOptions> = {}): Promise<OpenDatabase & { file: string }> {
  const file = join(tempDir(), "test.db");
  const database = await openDatabase({ url: `file:${file}`, ...options });
  await database.db.run(sql`CREATE TABLE notes (writer INTEGER NOT NULL, body TEXT NOT NULL)`);
  await database.db.run(sql`CREATE TABLE counter (n INTEGER NOT NULL)`);
  await database.db.run(sql`INSERT INTO counter (n) VALUES (0)`);
  cleanups.push(() => database.close());
  return { ...database, file };
}

const yieldOnce = () => new Promise((resolve) => setImmediate(resolve));

/** `n` concurrent writers, each inserting two rows and returning its number. */
function writers(database: OpenDatabase, n: number): Array<Promise<number>> {
  return Array.from({ length: n }, (_, i) =>
    runTransaction(database.db, async (tx) => {
      await tx.run(sql`INSERT INTO notes (writer, body) VALUES (${i}, 'a')`);
      await yieldOnce();
      await tx.run(sql`INSERT INTO notes (writer, body) VALUES (${i}, 'b')`);
      return i;
    }),
  );
}

async function rows(database: OpenDatabase): Promise<Array<{ writer: number; n: number }>> {
  return database.db.all(sql`SELECT writer, count(*) AS n FROM notes GROUP BY writer ORDER BY writer`);
}

describe("group commit", () => {
  it("commits 50 concurrent writers in fewer commits than writers, each result its own", async () => {
    const database = await open({ groupCommit: { maxBatchMs: 5000 } });
    // Durability is SQLite's FULL: the COMMIT that acknowledges a batch fsyncs the WAL.
    expect(await database.db.get(sql`PRAGMA synchronous`)).toEqual({ synchronous: 2 });
    const before = walCommits(database.file);
    const results = await Promise.all(writers(database, 50));
    const commits = walCommits(database.file) - before;
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(await rows(database)).toEqual(Array.from({ length: 50 }, (_, i) => ({ writer: i, n: 2 })));
    // 50 writers queued in one tick: the first leads a batch the other 49 join (at most 64 writers each).
    expect(commits).toBe(1);
  });

  it("holds a batch to maxWriters", async () => {
    const database = await open({ groupCommit: { maxWriters: 4, maxBatchMs: 5000 } });
    const before = walCommits(database.file);
    await Promise.all(writers(database, 20));
    expect(walCommits(database.file) - before).toBe(5);
  });

  it("commits each writer alone when group commit is off (the WAL count is right)", async () => {
    const database = await open({ groupCommit: false });
    const before = walCommits(database.file);
    await Promise.all(writers(database, 20));
    expect(walCommits(database.file) - before).toBe(20);
  });

  it("resolves a writer only once its rows are visible to another connection (committed)", async () => {
    const database = await open();
    const other = createClient({ url: `file:${database.file}` });
    cleanups.push(() => other.close());
    const seen = await Promise.all(
      writers(database, 30).map(async (p) => {
        const i = await p;
        const row = (
          await other.execute({ sql: "SELECT count(*) AS n FROM notes WHERE writer = ?", args: [i] })
        ).rows[0];
        return Number(row?.n);
      }),
    );
    expect(seen).toEqual(Array.from({ length: 30 }, () => 2));
  });

  it("rolls back only the writer that threw, rejects only its promise, and commits the others", async () => {
    const database = await open({ groupCommit: { maxBatchMs: 5000 } });
    const before = walCommits(database.file);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        runTransaction(database.db, async (tx) => {
          await tx.run(sql`INSERT INTO notes (writer, body) VALUES (${i}, 'a')`);
          await yieldOnce();
          if (i === 3 || i === 7) throw new Error(`writer ${i} refused`);
          await tx.run(sql`INSERT INTO notes (writer, body) VALUES (${i}, 'b')`);
          return i;
        }),
      ),
    );
    expect(walCommits(database.file) - before).toBe(1);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : String(o.reason)))).toEqual([
      0,
      1,
      2,
      "Error: writer 3 refused",
      4,
      5,
      6,
      "Error: writer 7 refused",
      8,
      9,
    ]);
    expect((await rows(database)).map((r) => r.writer)).toEqual([0, 1, 2, 4, 5, 6, 8, 9]);
  });

  it("rejects every writer of a batch whose COMMIT fails, and leaves nothing of it", async () => {
    const database = await open({ groupCommit: { maxBatchMs: 5000 } });
    await database.db.run(sql`CREATE TABLE parent (id INTEGER PRIMARY KEY)`);
    await database.db.run(
      sql`CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)`,
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        runTransaction(database.db, async (tx) => {
          await tx.run(sql`INSERT INTO notes (writer, body) VALUES (${i}, 'a')`);
          // A deferred foreign key passes every savepoint and fails only the COMMIT.
          if (i === 4) await tx.run(sql`INSERT INTO child (parent) VALUES (999)`);
          return i;
        }),
      ),
    );
    // All six shared one transaction (queued in one tick): its failed COMMIT rejects each of them.
    expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "fulfilled"))).toEqual(
      Array.from({ length: 6 }, () => expect.stringContaining("FOREIGN KEY constraint failed")),
    );
    expect(await rows(database)).toEqual([]);
  });

  it("lets a writer read through the handle what the writers before it in the batch wrote", async () => {
    const database = await open();
    // Each reads the counter through the database handle, not `tx`: it must see the batch's uncommitted bumps.
    await Promise.all(
      Array.from({ length: 40 }, () =>
        runTransaction(database.db, async (tx) => {
          const row = await database.db.get<{ n: number }>(sql`SELECT n FROM counter`);
          await yieldOnce();
          await tx.run(sql`UPDATE counter SET n = ${(row?.n ?? 0) + 1}`);
        }),
      ),
    );
    expect(await database.db.get(sql`SELECT n FROM counter`)).toEqual({ n: 40 });
  });

  it("ends a batch at a writer that cannot join it, which is served in its turn", async () => {
    const database = await open();
    const lock = writeLockFor(database.db);
    const order: string[] = [];
    const joined = (name: string) =>
      runTransaction(database.db, async (tx) => {
        await tx.run(sql`INSERT INTO notes (writer, body) VALUES (0, ${name})`);
        order.push(name);
      });
    const all = [
      joined("a"),
      joined("b"),
      lock(async () => void order.push("lock")),
      joined("c"),
      runTransaction(database.db, async () => void order.push("background"), { background: true }),
      joined("d"),
    ];
    await Promise.all(all);
    expect(order).toEqual(["a", "b", "lock", "c", "d", "background"]);
  });

  it("never holds up a statement of another caller while a batch's COMMIT is made durable", async () => {
    const database = await open();
    await database.db.run(sql`CREATE TABLE big (body BLOB)`);
    // Enough pages that writing and syncing them takes a while.
    const pages = new Uint8Array(64 * 1024);
    const started = performance.now();
    let committed = 0;
    const write = runTransaction(database.db, async (tx) => {
      for (let i = 0; i < 64; i++) await tx.run(sql`INSERT INTO big VALUES (${pages})`);
    }).then(() => {
      committed = performance.now() - started;
    });
    // Reads from outside the writer while its batch ends: each call's own (synchronous) part is timed.
    let longest = 0;
    let reads = 0;
    while (committed === 0) {
      const t0 = performance.now();
      const read = database.client.execute("SELECT 1");
      longest = Math.max(longest, performance.now() - t0);
      await read;
      reads++;
      await yieldOnce();
    }
    await write;
    // Had a read asked the batch's transaction whether it is open, it would have waited on the connection
    // the COMMIT holds, for as long as the fsync took.
    expect(reads).toBeGreaterThan(1);
    expect(longest).toBeLessThan(Math.max(2, committed / 4));
  });
});

const WRITER = fileURLToPath(new URL("./tests/group-commit-writer.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** Runs the writer child on `file`, kills it with SIGKILL after some acks, and returns what it printed. */
async function killMidBatch(file: string, killAfterAcks: number, delayMs: number): Promise<string[]> {
  // A real process, started from a bundle of the writer (node alone, no TypeScript loader to pay per round).
  const child = spawn(process.execPath, [await bundledChild(PACKAGE_DIR, WRITER), file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const lines: string[] = [];
  let acks = 0;
  let buffer = "";
  await new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        if (line.startsWith("ack ") && ++acks === killAfterAcks) setTimeout(resolve, delayMs);
      }
    });
    child.once("exit", () => resolve());
  });
  child.kill("SIGKILL");
  await exited;
  // Whatever the child wrote to the pipe before it died was acknowledged: read it all.
  for (const line of buffer.split("\n")) if (line !== "") lines.push(line);
  return lines;
}

describe("group commit under SIGKILL", () => {
  it("keeps every acknowledged writer and no half of any writer, over many kills mid-batch", async () => {
    const file = join(tempDir(), "crash.db");
    const acked = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const lines = await killMidBatch(file, 20 + round * 15, round % 4);
      expect(lines[0]).toBe("ready");
      for (const line of lines) if (line.startsWith("ack ")) acked.add(line.slice(4));
      const client = createClient({ url: `file:${file}` });
      const stored = (
        await client.execute("SELECT writer, count(*) AS n, sum(part) AS s FROM parts GROUP BY writer")
      ).rows.map((r) => ({ writer: String(r.writer), n: Number(r.n), s: Number(r.s) }));
      client.close();
      const present = new Set(stored.map((r) => r.writer));
      // Nothing acknowledged is lost.
      expect([...acked].filter((id) => !present.has(id))).toEqual([]);
      // No writer is half there: each has its three parts, and no refused writer left any.
      expect(stored.filter((r) => r.n !== 3 || r.s !== 3)).toEqual([]);
      expect(stored.filter((r) => r.writer.startsWith("bad"))).toEqual([]);
    }
    expect(acked.size).toBeGreaterThan(100);
  }, 120_000);
});
