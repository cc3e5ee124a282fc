import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "./database.js";
import { DatabaseBusyError, WriteInsideWriterError } from "./errors.js";
import { runTransaction } from "./group-commit.js";
import { holdWriteLock } from "./tests/lock-holder.js";
import { writeLockFor } from "./write-lock.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

async function open(busyTimeoutMs = 5000): Promise<OpenDatabase & { file: string }> {
  const dir = mkdtempSync(join(tmpdir(), "vetted-db-"));
  const file = join(dir, "test.db");
  const database = await openDatabase({ url: `file:${file}`, busyTimeoutMs });
  await database.db.run(sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`);
  cleanups.push(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { ...database, file };
}

async function count(database: OpenDatabase): Promise<number> {
  const row = await database.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM notes`);
  return row?.n ?? -1;
}

/** The longest the event loop went without running a timer while `work` ran. */
async function longestStall(work: Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  try {
    await work;
  } finally {
    clearInterval(timer);
  }
  // The gap up to now counts too: a block at the very end is seen by no timer tick.
  return Math.max(worst, performance.now() - last);
}

describe("the guarded database client", () => {
  it("waits out another process's write lock without blocking the event loop, then commits", async () => {
    const database = await open(5000);
    const holder = await holdWriteLock(database.file, 1500);
    const started = performance.now();
    const write = runTransaction(database.db, (tx) => tx.run(sql`INSERT INTO notes (body) VALUES ('a')`));
    // SQLite's own busy handler would hold the thread the whole 1.5 s; the loop must keep turning meanwhile.
    expect(await longestStall(write)).toBeLessThan(700);
    expect(performance.now() - started).toBeGreaterThan(1000);
    await holder.released;
    expect(await count(database)).toBe(1);
  });

  it("answers DATABASE_BUSY past the busy timeout, writes nothing, and the next write commits", async () => {
    const database = await open(300);
    const holder = await holdWriteLock(database.file, 1500);
    const refused = runTransaction(database.db, (tx) => tx.run(sql`INSERT INTO notes (body) VALUES ('a')`));
    await expect(refused).rejects.toBeInstanceOf(DatabaseBusyError);
    await expect(refused).rejects.toMatchObject({ code: "DATABASE_BUSY", retryAfterSeconds: 1 });
    // A write outside a transaction meets the same lock.
    await expect(database.db.run(sql`INSERT INTO notes (body) VALUES ('b')`)).rejects.toMatchObject({
      cause: { code: "DATABASE_BUSY" },
    });
    await holder.released;
    // No connection that met "busy" is reused: each of these would fail "SQL statements in progress".
    for (let i = 0; i < 5; i++) {
      await runTransaction(database.db, (tx) => tx.run(sql`INSERT INTO notes (body) VALUES ('c')`));
    }
    await database.db.run(sql`INSERT INTO notes (body) VALUES ('d')`);
    expect(await count(database)).toBe(6);
  });

  it("queues a write sent outside a transaction behind the open one instead of meeting it as busy", async () => {
    // A busy timeout far shorter than the transaction: only queueing behind the writer lets the write through.
    const database = await open(40);
    const order: string[] = [];
    const inTx = runTransaction(database.db, async (tx) => {
      await tx.run(sql`INSERT INTO notes (body) VALUES ('tx')`);
      await new Promise((resolve) => setTimeout(resolve, 150));
      order.push("tx");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const loose = database.db
      .run(sql`INSERT INTO notes (body) VALUES ('loose')`)
      .then(() => order.push("loose"));
    await Promise.all([inTx, loose]);
    expect(order).toEqual(["tx", "loose"]);
    expect(await count(database)).toBe(2);
  });

  it("refuses a write on the database handle from inside the writer (it would wait on itself)", async () => {
    const database = await open(5000);
    const attempt = runTransaction(database.db, async () => {
      await database.db.run(sql`INSERT INTO notes (body) VALUES ('x')`);
    });
    await expect(attempt).rejects.toMatchObject({ cause: expect.any(WriteInsideWriterError) });
    // Reads on the handle are fine inside the writer, and the writer is free again afterwards.
    await runTransaction(database.db, async (tx) => {
      await database.db.all(sql`SELECT * FROM notes`);
      await tx.run(sql`INSERT INTO notes (body) VALUES ('y')`);
    });
    expect(await count(database)).toBe(1);
  });

  it("serializes a transaction opened directly on the handle with the queued writers", async () => {
    // 20 transactions of 10 ms each against a 40 ms busy timeout: they must queue, not contend.
    const database = await open(40);
    await database.db.run(sql`CREATE TABLE counter (n INTEGER NOT NULL)`);
    await database.db.run(sql`INSERT INTO counter (n) VALUES (0)`);
    const bump = async (tx: Parameters<Parameters<typeof database.db.transaction>[0]>[0]) => {
      const row = await tx.get<{ n: number }>(sql`SELECT n FROM counter`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await tx.run(sql`UPDATE counter SET n = ${(row?.n ?? 0) + 1}`);
    };
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0 ? database.db.transaction(bump) : runTransaction(database.db, bump),
      ),
    );
    expect(await database.db.get<{ n: number }>(sql`SELECT n FROM counter`)).toEqual({ n: 20 });
  });

  it("ends a transaction whose writer throws, so the next one starts clean", async () => {
    const database = await open(5000);
    await expect(
      runTransaction(database.db, async (tx) => {
        await tx.run(sql`INSERT INTO notes (body) VALUES ('lost')`);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    await runTransaction(database.db, (tx) => tx.run(sql`INSERT INTO notes (body) VALUES ('kept')`));
    expect(await database.db.all(sql`SELECT body FROM notes`)).toEqual([{ body: "kept" }]);
  });

  it("refuses every operation once closed, even while work of the old client is still in flight", async () => {
    const database = await open(5000);
    const inFlight = runTransaction(database.db, async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await tx.run(sql`INSERT INTO notes (body) VALUES ('late')`);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    database.close();
    await expect(database.db.all(sql`SELECT 1`)).rejects.toMatchObject({ cause: { code: "CLIENT_CLOSED" } });
    await inFlight.catch(() => undefined);
  });
});

describe("the write lock's lanes", () => {
  it("serves every queued foreground writer before a queued background writer", async () => {
    const database = await open(5000);
    const lock = writeLockFor(database.db);
    const order: string[] = [];
    const first = lock(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push("first");
    });
    const background = lock(async () => void order.push("background"), { background: true });
    const requests = [1, 2, 3].map((i) => lock(async () => void order.push(`request ${i}`)));
    expect(lock.waiting()).toEqual({ foreground: 3, background: 1 });
    await Promise.all([first, background, ...requests]);
    expect(order).toEqual(["first", "request 1", "request 2", "request 3", "background"]);
  });

  it("still serves a background writer after 16 foreground writers in a row", async () => {
    const database = await open(5000);
    const lock = writeLockFor(database.db);
    const order: string[] = [];
    const first = lock(() => new Promise((resolve) => setTimeout(resolve, 20)));
    const background = lock(async () => void order.push("background"), { background: true });
    const requests = Array.from({ length: 30 }, (_, i) => lock(async () => void order.push(`request ${i}`)));
    await Promise.all([first, background, ...requests]);
    expect(order.indexOf("background")).toBe(16);
  });
});
