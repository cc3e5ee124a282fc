import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { describe, expect, it } from "vitest";
import { runTransaction } from "./group-commit.js";
import { writeLockFor } from "./write-lock.js";

function openDatabase() {
  const url = `file:${join(mkdtempSync(join(tmpdir(), "vetted-store-")), "test.db")}`;
  const client = createClient({ url });
  return { client, db: drizzle(client) };
}

describe("the per-client write lock", () => {
  it("shares one lock between every Drizzle handle over the same client", () => {
    const { client, db } = openDatabase();
    expect(writeLockFor(drizzle(client))).toBe(writeLockFor(db));
    expect(writeLockFor(openDatabase().db)).not.toBe(writeLockFor(db));
    client.close();
  });

  it("serializes 50 concurrent read-modify-write transactions so none is lost", async () => {
    const { client, db } = openDatabase();
    await db.run(sql`CREATE TABLE counter (n INTEGER NOT NULL)`);
    await db.run(sql`INSERT INTO counter (n) VALUES (0)`);
    await Promise.all(
      Array.from({ length: 50 }, () =>
        runTransaction(db, async (tx) => {
          const row = await tx.get<{ n: number }>(sql`SELECT n FROM counter`);
          await new Promise((resolve) => setImmediate(resolve));
          await tx.run(sql`UPDATE counter SET n = ${(row?.n ?? 0) + 1}`);
        }),
      ),
    );
    expect(await db.get<{ n: number }>(sql`SELECT n FROM counter`)).toEqual({ n: 50 });
    client.close();
  });
});
