/**
 * Bench: what the guarded client costs against a plain libsql client on the same kind of SQLite file —
 * single-row write transactions through `runTransaction`, and point reads — in alternating rounds, so a
 * load change on a shared machine hits both alike. Prints each figure as a ratio guarded ÷ plain
 * (1.00 = free). Run with `pnpm --filter @vetted/store bench`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { openDatabase } from "../src/database.js";
import { runTransaction } from "../src/group-commit.js";

const WRITES = Number(process.env.BENCH_WRITES ?? 2000);
const READS = Number(process.env.BENCH_READS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const dir = mkdtempSync(join(tmpdir(), "vetted-store-bench-"));

async function prepare(db: LibSQLDatabase): Promise<void> {
  await db.run(sql`PRAGMA journal_mode = WAL`);
  await db.run(sql`CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`);
  await db.run(sql`INSERT INTO counter (id, n) VALUES (1, 0)`);
}

const plainClient = createClient({ url: `file:${join(dir, "plain.db")}`, timeout: 5000 });
const plain = drizzle(plainClient);
await prepare(plain);
const guarded = await openDatabase({ url: `file:${join(dir, "guarded.db")}` });
await prepare(guarded.db);

async function writes(db: LibSQLDatabase): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < WRITES; i++) {
    await runTransaction(db, (tx) => tx.run(sql`UPDATE counter SET n = n + 1 WHERE id = 1`));
  }
  return performance.now() - t;
}

async function reads(db: LibSQLDatabase): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < READS; i++) await db.get(sql`SELECT n FROM counter WHERE id = 1`);
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const writeRatios: number[] = [];
const readRatios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [plain, guarded.db] : [guarded.db, plain];
  const w = new Map<LibSQLDatabase, number>();
  const r = new Map<LibSQLDatabase, number>();
  for (const db of order) w.set(db, await writes(db));
  for (const db of order) r.set(db, await reads(db));
  // Throughput ratio guarded ÷ plain: plain time over guarded time.
  writeRatios.push((w.get(plain) ?? 0) / (w.get(guarded.db) ?? 1));
  readRatios.push((r.get(plain) ?? 0) / (r.get(guarded.db) ?? 1));
  console.log(
    `round ${round + 1}: writes/s plain ${((WRITES / (w.get(plain) ?? 1)) * 1000).toFixed(0)}, guarded ${((WRITES / (w.get(guarded.db) ?? 1)) * 1000).toFixed(0)}; reads/s plain ${((READS / (r.get(plain) ?? 1)) * 1000).toFixed(0)}, guarded ${((READS / (r.get(guarded.db) ?? 1)) * 1000).toFixed(0)}`,
  );
}
console.log(`write transactions/s, guarded ÷ plain: median ${median(writeRatios).toFixed(3)}`);
console.log(`point reads/s, guarded ÷ plain: median ${median(readRatios).toFixed(3)}`);
plainClient.close();
guarded.close();
rmSync(dir, { recursive: true, force: true });
