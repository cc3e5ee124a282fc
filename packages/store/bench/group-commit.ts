/**
 * Bench: a burst of 200 concurrent single-row writers through `runTransaction`, with group commit (the
 * guarded client's default) against one transaction each (`groupCommit: false`, the baseline) and against
 * bare SQL — one transaction holding all 200 inserts, the physical limit of one fsync. Three SQLite files
 * (WAL, synchronous=FULL), measured in alternating rounds so a load change on a shared machine hits all
 * alike. Prints each round and the medians as ratios to the baseline (higher is faster). Run with
 * `pnpm --filter @vetted/store bench:group-commit` (or `bench`, which runs every store bench).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { type OpenDatabase, openDatabase } from "../src/database.js";
import { runTransaction } from "../src/group-commit.js";
import { lockInternals, writeLockFor } from "../src/write-lock.js";

const WRITERS = Number(process.env.BENCH_WRITERS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const dir = mkdtempSync(join(tmpdir(), "vetted-store-gc-bench-"));

async function open(name: string, groupCommit: boolean): Promise<OpenDatabase> {
  const database = await openDatabase({
    url: `file:${join(dir, `${name}.db`)}`,
    ...(groupCommit ? {} : { groupCommit: false }),
  });
  await database.db.run(
    sql`CREATE TABLE items (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, body TEXT NOT NULL)`,
  );
  return database;
}

type Mode = "group" | "each" | "bare";
const databases: Record<Mode, OpenDatabase> = {
  group: await open("group", true),
  each: await open("each", false),
  bare: await open("bare", false),
};

async function burst(mode: Mode): Promise<number> {
  const { db } = databases[mode];
  const t = performance.now();
  if (mode === "bare") {
    await runTransaction(db, async (tx) => {
      for (let i = 0; i < WRITERS; i++)
        await tx.run(sql`INSERT INTO items (writer, body) VALUES (${i}, 'x')`);
    });
  } else {
    await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        runTransaction(db, (tx) => tx.run(sql`INSERT INTO items (writer, body) VALUES (${i}, 'x')`)),
      ),
    );
  }
  return performance.now() - t;
}

// One warm-up burst each, unmeasured.
for (const mode of ["group", "each", "bare"] as const) await burst(mode);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const times: Record<Mode, number[]> = { group: [], each: [], bare: [] };
const orders: Mode[][] = [
  ["each", "group", "bare"],
  ["group", "bare", "each"],
  ["bare", "each", "group"],
];
for (let round = 0; round < ROUNDS; round++) {
  const order = orders[round % orders.length] ?? ["each", "group", "bare"];
  for (const mode of order) times[mode].push(await burst(mode));
  const last = (mode: Mode) => (times[mode][round] ?? Number.NaN).toFixed(1);
  const stats = lockInternals(writeLockFor(databases.group.db)).stats;
  console.log(
    `round ${round + 1}: ${WRITERS} writers — one transaction each ${last("each")} ms, group commit ${last("group")} ms (${stats.writers} writers in ${stats.batches} commits so far), bare SQL (one transaction) ${last("bare")} ms`,
  );
}
const each = median(times.each);
const group = median(times.group);
const bare = median(times.bare);
console.log(
  `median ms: one transaction each ${each.toFixed(1)}, group commit ${group.toFixed(1)}, bare SQL ${bare.toFixed(1)}`,
);
console.log(
  `speed vs one transaction each (baseline 1.00): group commit ${(each / group).toFixed(2)}×, bare SQL ${(each / bare).toFixed(2)}×`,
);
console.log(`group commit ÷ bare SQL (the physical limit): ${(bare / group).toFixed(2)}`);
for (const { close } of Object.values(databases)) close();
rmSync(dir, { recursive: true, force: true });
