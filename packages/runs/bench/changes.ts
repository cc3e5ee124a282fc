/**
 * Bench: the runs list's change hub. For N followers, the time from a run's creation (committed) until every
 * follower has its `run_created` change, against the baseline of the same N followers each reading the runs
 * list once (what one tick of the console's old 5 s poll cost), measured in the same run on the same SQLite
 * file. Run with `pnpm --filter @vetted/runs bench:changes`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createRunsEngine, migrate } from "../src/index.js";

const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 200);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 50);
const SEED_RUNS = Number(process.env.BENCH_SEED_RUNS ?? 1000);

const dir = mkdtempSync(join(tmpdir(), "vetted-changes-bench-"));
const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);
const engine = createRunsEngine({ db, secretsKey: randomBytes(32), catchUpMs: 60_000 });
const flow = await engine.createFlow({ name: "gate", steps: [{ id: "ok", type: "approval_gate" }] });
for (let i = 0; i < SEED_RUNS; i++) await engine.createRun({ flow_id: flow.id, params: {} });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

// N followers of the hub; each change resolves once all of them have it.
let waiting: { runId: string; left: number; done: () => void } | undefined;
const stops: Array<() => void> = [];
for (let i = 0; i < FOLLOWERS; i++) {
  stops.push(
    engine.subscribeChanges(await engine.changesHead(), (batch) => {
      for (const change of batch) {
        if (waiting !== undefined && change.run_id === waiting.runId && --waiting.left === 0) waiting.done();
      }
    }),
  );
}

const hubMs: number[] = [];
const pollMs: number[] = [];
for (let i = 0; i < CHANGES; i++) {
  // Baseline: every follower reads the list once (one poll tick), in parallel like independent clients.
  let t0 = performance.now();
  await Promise.all(Array.from({ length: FOLLOWERS }, () => engine.listRuns({ limit: 100 })));
  pollMs.push(performance.now() - t0);
  // The hub: one run created, delivered to every follower.
  t0 = performance.now();
  const delivered = new Promise<void>((resolve) => {
    waiting = { runId: "", left: FOLLOWERS, done: resolve };
  });
  const run = await engine.createRun({ flow_id: flow.id, params: {} });
  if (waiting !== undefined) waiting.runId = run.id;
  await delivered;
  hubMs.push(performance.now() - t0);
}
for (const stop of stops) stop();
await engine.stop();
client.close();
rmSync(dir, { recursive: true, force: true });

const hub = median(hubMs);
const poll = median(pollMs);
console.log(`followers ${FOLLOWERS}, changes ${CHANGES}, runs stored ${SEED_RUNS + CHANGES}`);
console.log(`one change to every follower (create + deliver), median: ${hub.toFixed(2)} ms`);
console.log(`one poll tick (every follower lists 100 runs), median: ${poll.toFixed(2)} ms`);
console.log(`ratio hub / poll tick: ${(hub / poll).toFixed(3)}`);
