/**
 * Bench: workflows of 5 checkpointed steps (`wait` 0 s: each step's start and end are committed) per
 * second through the engine on a SQLite file, against a baseline in the same run: bare SQL inserts of the
 * same rows (each run's row and its events, copied from what the engine wrote) in as many transactions as
 * the engine committed for it. Rounds alternate, so a load change on a shared machine hits both alike.
 * Run with `pnpm --filter @vetted/runs bench:checkpointed`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@vetted/store/database";
import { eq, sql } from "drizzle-orm";
import { createRunsEngine, migrate, type RunsEngine } from "../src/index.js";
import { events, runs } from "../src/store/schema.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const dir = mkdtempSync(join(tmpdir(), "vetted-runs-checkpointed-"));
const { db, client } = await openDatabase({ url: `file:${join(dir, "bench.db")}`, busyTimeoutMs: 5000 });
await migrate(db);
await client.execute("CREATE TABLE bench_runs AS SELECT * FROM runs_runs WHERE 0");
await client.execute("CREATE TABLE bench_events AS SELECT * FROM runs_events WHERE 0");

async function waitForSuccess(engine: RunsEngine, n: number): Promise<void> {
  while ((await engine.countRunsByStatus()).success < n) await new Promise((r) => setTimeout(r, 5));
}

const engine = createRunsEngine({ db, secretsKey: randomBytes(32), pollMs: 5, concurrency: 4 });
const flow = await engine.createFlow({
  name: "five checkpoints",
  steps: ["a", "b", "c", "d", "e"].map((id) => ({ id, type: "wait" as const, seconds: 0 })),
});
engine.start();
const rounds: Array<{ engineMs: number; baselineMs: number; commits: number }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) ids.push((await engine.createRun({ flow_id: flow.id, params: {} })).id);
  await waitForSuccess(engine, RUNS * round);
  const engineMs = performance.now() - t0;
  // The engine's commits per run: its creation, the claim (with the first step's start), and each step's
  // end (with the next step's start, which rides on it), read from its events.
  const [one] = ids;
  const log = one === undefined ? [] : await db.select().from(events).where(eq(events.runId, one));
  const commits = 2 + log.filter((e) => e.type === "step_finished").length;
  const t1 = performance.now();
  for (const id of ids) {
    const runEvents = await db.select().from(events).where(eq(events.runId, id));
    const [row] = await db.select().from(runs).where(eq(runs.id, id));
    if (row === undefined) continue;
    const per = Math.ceil(runEvents.length / (commits - 1));
    await db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO bench_runs SELECT * FROM runs_runs WHERE id = ${id}`);
    });
    for (let i = 0; i < commits - 1; i++) {
      const part = runEvents.slice(i * per, (i + 1) * per);
      await db.transaction(async (tx) => {
        for (const e of part) {
          await tx.run(
            sql`INSERT INTO bench_events (run_id, seq, type, data, at) VALUES (${e.runId}, ${e.seq}, ${e.type}, ${JSON.stringify(e.data)}, ${e.at})`,
          );
        }
      });
    }
  }
  rounds.push({ engineMs, baselineMs: performance.now() - t1, commits });
}
await engine.stop();
client.close();
rmSync(dir, { recursive: true, force: true });

const perSec = (ms: number) => (RUNS / ms) * 1000;
console.log(`workflows of 5 checkpointed steps on a SQLite file, ${ROUNDS} rounds of ${RUNS}:`);
for (const [i, r] of rounds.entries()) {
  console.log(
    `  round ${i + 1}: engine ${perSec(r.engineMs).toFixed(1)} workflows/s; bare inserts of the same rows in the same ${r.commits} commits per workflow ${perSec(r.baselineMs).toFixed(1)} workflows/s; ratio ${(r.baselineMs / r.engineMs).toFixed(3)}`,
  );
}
