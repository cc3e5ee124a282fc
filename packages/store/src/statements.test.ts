import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { runTransaction } from "./group-commit.js";
import { executeInTx } from "./statements.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "vetted-stmt-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "test.db");
}

async function notes(db: LibSQLDatabase): Promise<string[]> {
  await db.run(sql`CREATE TABLE IF NOT EXISTS notes (body TEXT NOT NULL)`);
  const rows = await db.all<{ body: string }>(sql`SELECT body FROM notes ORDER BY rowid`);
  return rows.map((r) => r.body);
}

const INSERT = "INSERT INTO notes (body) VALUES (?), (?)";

describe("executeInTx", () => {
  it("writes in the caller's savepoint of a group-commit batch: kept with it, rolled back with it", async () => {
    const database = await openDatabase({ url: `file:${tempFile()}`, groupCommit: { maxBatchMs: 1000 } });
    cleanups.push(() => database.close());
    const { db } = database;
    expect(await notes(db)).toEqual([]);
    const kept = runTransaction(db, async (tx) => {
      const result = await executeInTx(db, tx, INSERT, ["a", "b"]);
      // Its own write is visible to it through tx, as a Drizzle statement's would be.
      const seen = await tx.all<{ n: number }>(sql`SELECT count(*) AS n FROM notes`);
      return { affected: result.rowsAffected, seen: seen[0]?.n };
    });
    const failed = runTransaction(db, async (tx) => {
      await executeInTx(db, tx, INSERT, ["c", "d"]);
      throw new Error("this writer fails");
    });
    const after = runTransaction(db, (tx) => executeInTx(db, tx, INSERT, ["e", "f"]));
    expect(await kept).toEqual({ affected: 2, seen: 2 });
    await expect(failed).rejects.toThrow("this writer fails");
    expect((await after).rowsAffected).toBe(2);
    // The failing writer's rows went with its savepoint; the others' stand.
    expect(await notes(db)).toEqual(["a", "b", "e", "f"]);
  });

  it("runs through tx as Drizzle SQL when the handle's client is not a guarded one", async () => {
    const client = createClient({ url: `file:${tempFile()}` });
    cleanups.push(() => client.close());
    const db = drizzle(client);
    await notes(db);
    await db
      .transaction(async (tx) => {
        await executeInTx(db, tx, INSERT, ["x", "y"]);
        expect(await tx.all(sql`SELECT body FROM notes`)).toHaveLength(2);
        tx.rollback();
      })
      .catch(() => undefined);
    expect(await notes(db)).toEqual([]);
    await db.transaction((tx) => executeInTx(db, tx, INSERT, ["x", "y"]));
    expect(await notes(db)).toEqual(["x", "y"]);
  });
});
