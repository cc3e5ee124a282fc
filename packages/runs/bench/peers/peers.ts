/**
 * Bench: the runs engine against DBOS Transact (on a throwaway local PostgreSQL cluster) and Restate (its
 * server on loopback), on one workload, engines alternating in one run:
 *  (a) 500 workflows × 5 checkpointed steps, workflows/s;
 *  (b) one human signal → the next step persisted (the workflow's end observed), p50 / p95 ms;
 *  (c) 200 signals at once → all next steps persisted, ms;
 *  (d) the same 500 workflows' computations without a checkpoint per step, workflows/s;
 *  (e) kill -9 half-way through 200 workflows of 5 steps: recovery after a restart (kill.ts).
 * The peers are installed on demand with plain npm in a folder outside the pnpm workspace
 * (`$XDG_CACHE_HOME/vetted-bench-peers`, else `~/.cache/vetted-bench-peers`); a peer that cannot be
 * installed or started is reported and skipped. Not part of `pnpm test`.
 * Run with `pnpm --filter @vetted/runs bench:peers`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@vetted/store/database";
import { createRunsEngine, migrate, type RunsEngine } from "../../src/index.js";
import { closeSink, killHalfway, killText } from "./kill.js";
import { dbosTarget, oursTarget, restateTarget } from "./kill-targets.js";
import { installPeers, type Peer, runPeer, startPostgres, startRestate } from "./peer-processes.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const SIGNALS = Number(process.env.BENCH_SIGNALS ?? 50);
const BURST = Number(process.env.BENCH_BURST ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const KILLED = Number(process.env.BENCH_KILLED ?? 200);

type Part = "throughput" | "pure" | "signal" | "burst";
type Figure = { ms: number } | { samples: number[] };

/** A fresh engine on a fresh SQLite file (the store's defaults: WAL, synchronous=FULL, group commit). */
async function withEngine<T>(fn: (engine: RunsEngine) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "vetted-bench-peers-"));
  const { db, client } = await openDatabase({ url: `file:${join(dir, "bench.db")}`, busyTimeoutMs: 5000 });
  await migrate(db);
  const engine = createRunsEngine({ db, secretsKey: randomBytes(32), pollMs: 5, concurrency: CONCURRENCY });
  engine.start();
  try {
    return await fn(engine);
  } finally {
    await engine.stop();
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Resolves once `stepId` of `runId` has finished and been committed. */
function finished(engine: RunsEngine, runId: string, stepId: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = engine.subscribe(runId, 0, (batch) => {
      if (batch.some((e) => e.type === "step_finished" && e.data.step_id === stepId)) {
        queueMicrotask(() => stop());
        resolve();
      }
    });
  });
}

async function waitingAtGate(engine: RunsEngine, n: number): Promise<string[]> {
  const flow = await engine.createFlow({
    name: "gated",
    steps: [
      { id: "go", type: "approval_gate", prompt: "Go on?" },
      { id: "next", type: "wait", seconds: 0 },
    ],
  });
  const create = () => engine.createRun({ flow_id: flow.id, params: {} });
  const ids = (await Promise.all(Array.from({ length: n }, create))).map((run) => run.id);
  while ((await engine.countRunsByStatus()).waiting_user < n) await new Promise((r) => setTimeout(r, 10));
  return ids;
}

/** Our side of one part. */
async function ours(part: Part, n: number): Promise<Figure> {
  return withEngine(async (engine) => {
    if (part === "throughput" || part === "pure") {
      const ids = ["a", "b", "c", "d", "e"];
      const flow = await engine.createFlow(
        part === "throughput"
          ? { name: "five checkpoints", steps: ids.map((id) => ({ id, type: "wait" as const, seconds: 0 })) }
          : // Pure steps run in memory and commit together with the run's claim-to-end transition.
            {
              name: "five computations",
              steps: ids.map((id) => ({ id, type: "set" as const, vars: { [id]: 1 } })),
            },
      );
      // All started at once, as the peers' are (their creations share commits).
      const t0 = performance.now();
      const start = async () => {
        const run = await engine.createRun({ flow_id: flow.id, params: {} });
        await finished(engine, run.id, "e");
      };
      await Promise.all(Array.from({ length: n }, start));
      return { ms: performance.now() - t0 };
    }
    const ids = await waitingAtGate(engine, n);
    const signal = async (id: string) => {
      const done = finished(engine, id, "next");
      await engine.resumeRun(id, { kind: "approval", approved: true });
      await done;
    };
    if (part === "signal") {
      const samples: number[] = [];
      for (const id of ids) {
        const t0 = performance.now();
        await signal(id);
        samples.push(performance.now() - t0);
      }
      return { samples };
    }
    const t0 = performance.now();
    await Promise.all(ids.map(signal));
    return { ms: performance.now() - t0 };
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** The figure printed for a part, and the number compared (higher is better for throughput only). */
function summarize(part: Part, n: number, f: Figure): { text: string; value: number } {
  if ("samples" in f) {
    const s = [...f.samples].sort((a, b) => a - b);
    const p50 = quantile(s, 0.5);
    const p95 = quantile(s, 0.95);
    return { text: `p50 ${p50.toFixed(1)} ms / p95 ${p95.toFixed(1)} ms`, value: p95 };
  }
  if (part === "throughput" || part === "pure") {
    const perSec = (n / f.ms) * 1000;
    return { text: `${perSec.toFixed(0)} workflows/s`, value: perSec };
  }
  return { text: `${f.ms.toFixed(0)} ms`, value: f.ms };
}

/** Which peers to run (`BENCH_PEERS=dbos,restate` by default; `none`: ours alone). */
const wanted = new Set((process.env.BENCH_PEERS ?? "dbos,restate").split(","));
const peers: Peer[] = [];
const install = wanted.has("dbos") || wanted.has("restate") ? installPeers() : undefined;
if (install?.ok === true) {
  const pg = wanted.has("dbos") ? await startPostgres(install.dir) : undefined;
  if (pg?.ok === true) peers.push(pg.peer);
  else if (pg !== undefined) console.log(`DBOS Transact skipped: ${pg.why}`);
  const restate = wanted.has("restate") ? await startRestate(install.dir) : undefined;
  if (restate?.ok === true) peers.push(restate.peer);
  else if (restate !== undefined) console.log(`Restate skipped: ${restate.why}`);
} else if (install !== undefined) {
  console.log(`peers skipped: ${install.why}`);
}

// Interrupted: the cluster and the server go too.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all(peers.map((p) => p.stop())).finally(() => process.exit(130));
  });
}

const parts: Array<{ part: Part; n: number; title: string }> = [
  { part: "throughput", n: RUNS, title: `(a) ${RUNS} workflows × 5 checkpointed steps` },
  { part: "signal", n: SIGNALS, title: `(b) one signal → next step persisted (${SIGNALS} in a row)` },
  { part: "burst", n: BURST, title: `(c) ${BURST} signals at once → all next steps persisted` },
  {
    part: "pure",
    n: RUNS,
    title: `(d) ${RUNS} workflows × the same 5 computations without per-step checkpoints`,
  },
];
try {
  for (const [i, { part, n, title }] of parts.entries()) {
    console.log(title);
    const mine = summarize(part, n, await ours(part, n));
    console.log(`  vetted   ${mine.text}`);
    // Alternate who goes first after us from part to part.
    const order = i % 2 === 0 ? peers : [...peers].reverse();
    for (const peer of order) {
      const result = await runPeer(peer, part, n);
      if (!result.ok) {
        console.log(`  ${peer.name.padEnd(8)} failed: ${result.why}`);
        continue;
      }
      const theirs = summarize(part, n, result.figure);
      const ratio = theirs.value / mine.value;
      const better = part === "throughput" || part === "pure" ? ratio <= 1 : ratio >= 1;
      console.log(
        `  ${peer.name.padEnd(8)} ${theirs.text}; ${peer.name} ÷ vetted ${ratio.toFixed(2)} (${better ? "vetted ahead" : "vetted behind"})`,
      );
    }
  }
  console.log(
    `(e) kill -9 half-way through ${KILLED} workflows × 5 steps (each GETs a counting sink), then a restart`,
  );
  const mine = await killHalfway(KILLED, (sink) => oursTarget(KILLED, sink, CONCURRENCY));
  console.log(`  vetted   ${killText(mine, KILLED)}`);
  for (const peer of parts.length % 2 === 0 ? peers : [...peers].reverse()) {
    const theirs = await killHalfway(KILLED, (sink, tag) =>
      peer.kind === "dbos"
        ? Promise.resolve(dbosTarget(peer, KILLED, sink, tag))
        : restateTarget(peer, KILLED, sink, tag),
    ).then(
      (f) => killText(f, KILLED, mine),
      (e: unknown) => `failed: ${e instanceof Error ? e.message : String(e)}`,
    );
    console.log(`  ${peer.name.padEnd(8)} ${theirs}`);
  }
} finally {
  closeSink();
  for (const peer of peers) await peer.stop();
}
