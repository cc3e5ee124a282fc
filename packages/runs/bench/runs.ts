/**
 * Bench: runs of a 5-step flow with no external I/O, created and completed through the engine on a SQLite
 * file, against the same number of bare single-row transactional updates on the same database; and the
 * resume-to-next-step latency. Run with `pnpm --filter @vetted/runs bench`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { createRunsEngine, migrate, type RunStatus, type RunsEngine } from "../src/index.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RESUMES = Number(process.env.BENCH_RESUMES ?? 200);

const dir = mkdtempSync(join(tmpdir(), "vetted-runs-bench-"));
const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function waitForCount(engine: RunsEngine, status: RunStatus, n: number): Promise<void> {
  for (;;) {
    if ((await engine.countRunsByStatus())[status] >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Rounds of baseline then engine back to back, so a load change on a shared machine hits both alike.
await client.execute("CREATE TABLE bench_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
await client.execute("INSERT INTO bench_counter (id, n) VALUES (1, 0)");
const resumeLatencies: number[] = [];
const engine = createRunsEngine({
  db,
  secretsKey: randomBytes(32),
  pollMs: 5,
  concurrency: 4,
  observer: { resumeToNextStep: (ms) => resumeLatencies.push(ms) },
});
const flow = await engine.createFlow({
  name: "five",
  steps: [
    { id: "a", type: "set", vars: { x: 1 } },
    { id: "b", type: "set", vars: { y: "${vars.x}" } },
    { id: "c", type: "assert", value: "${vars.y}", equals: 1 },
    { id: "d", type: "set", vars: { z: "done" } },
    { id: "e", type: "assert", value: "${vars.z}", equals: "done" },
  ],
});
engine.start();
const rounds: Array<{ baselineMs: number; runsMs: number }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i++) {
    await db.transaction(async (tx) => {
      await tx.run(sql`UPDATE bench_counter SET n = n + 1 WHERE id = 1`);
    });
  }
  const baselineMs = performance.now() - t0;
  const t1 = performance.now();
  for (let i = 0; i < RUNS; i++) await engine.createRun({ flow_id: flow.id, params: {} });
  await waitForCount(engine, "success", RUNS * round);
  rounds.push({ baselineMs, runsMs: performance.now() - t1 });
}

// Resume-to-next-step: M runs paused at an input gate, resumed one by one.
const gated = await engine.createFlow({
  name: "gated",
  steps: [
    { id: "ask", type: "input_gate", prompt: "?" },
    { id: "after", type: "set", vars: { got: "${gate.input_text}" } },
  ],
});
const ids: string[] = [];
for (let i = 0; i < RESUMES; i++) ids.push((await engine.createRun({ flow_id: gated.id, params: {} })).id);
await waitForCount(engine, "waiting_user", RESUMES);
const callLatencies: number[] = [];
for (const id of ids) {
  const s = performance.now();
  await engine.resumeRun(id, { kind: "input", input_text: "ok" });
  callLatencies.push(performance.now() - s);
  await new Promise((r) => setTimeout(r, 1));
}
await waitForCount(engine, "success", RUNS * ROUNDS + RESUMES);
await engine.stop();
client.close();
rmSync(dir, { recursive: true, force: true });

const perSec = (ms: number) => (RUNS / ms) * 1000;
console.log(
  `runs of a 5-step flow (no I/O) on a SQLite file, ${ROUNDS} rounds of ${RUNS} runs, each after ${RUNS} bare single-row transactional updates:`,
);
for (const [i, r] of rounds.entries()) {
  console.log(
    `  round ${i + 1}: engine ${perSec(r.runsMs).toFixed(1)} runs/s, baseline ${perSec(r.baselineMs).toFixed(1)} updates/s, ratio ${(r.baselineMs / r.runsMs).toFixed(3)}`,
  );
}
const ratios = rounds.map((r) => r.baselineMs / r.runsMs);
const best = Math.max(...rounds.map((r) => perSec(r.runsMs)));
console.log(
  `  median ratio runs/s ÷ updates/s: ${percentile(ratios, 50).toFixed(3)} (${(1 / percentile(ratios, 50)).toFixed(1)} update-times per run)`,
);
console.log(
  `  engine runs/s: median ${percentile(
    rounds.map((r) => perSec(r.runsMs)),
    50,
  ).toFixed(1)}, best ${best.toFixed(1)}`,
);
console.log(`resume → next step claimed, ${RESUMES} resumes:`);
console.log(
  `  p50 ${percentile(resumeLatencies, 50).toFixed(2)} ms, p95 ${percentile(resumeLatencies, 95).toFixed(2)} ms, max ${Math.max(...resumeLatencies).toFixed(2)} ms`,
);
const medianUpdateMs = percentile(
  rounds.map((r) => r.baselineMs / RUNS),
  50,
);
console.log(
  `  resume call itself: p95 ${percentile(callLatencies, 95).toFixed(2)} ms (${(percentile(callLatencies, 95) / medianUpdateMs).toFixed(1)}x a baseline update)`,
);
