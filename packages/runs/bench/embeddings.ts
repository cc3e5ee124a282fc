/**
 * Bench: the local embeddings model over 1,000 short texts against tokenising the same texts alone (both
 * in texts/s; the model loaded first), and `similarFailures` over 10,000 stored failed runs (p95), through
 * libSQL's vector index and by the in-memory scan, each against reading the same 10,000 stored vectors alone;
 * with each path's first query (the index's backfill, the scan's load) and how often the two agree. Run with `pnpm --filter @vetted/runs bench:embeddings`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { createRunsEngine, migrate } from "../src/index.js";
import { createLocalEmbedder, createTokenizer } from "../src/lanes/embeddings/index.js";

const TEXTS = Number(process.env.BENCH_TEXTS ?? 1000);
const STORED = Number(process.env.BENCH_STORED ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const WORDS = [
  "payment",
  "declined",
  "card",
  "expired",
  "timeout",
  "waiting",
  "checkout",
  "cart",
  "invoice",
  "bill",
  "server",
  "error",
  "status",
  "login",
  "password",
  "code",
  "sms",
  "shipping",
  "address",
  "refund",
];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** A deterministic short text: `n` picks five words. */
function textOf(n: number): string {
  return Array.from({ length: 5 }, (_, i) => WORDS[(n * 7 + i * 13 + ((n >> i) & 3)) % WORDS.length]).join(
    " ",
  );
}

const cacheDir = join(tmpdir(), "vetted-embeddings-cache");
const embedder = createLocalEmbedder({ cacheDir });
const loadStart = performance.now();
await embedder.embed(["warm up"]);
console.log(`local model load (cache in ${cacheDir}): ${(performance.now() - loadStart).toFixed(0)} ms`);

const texts = Array.from({ length: TEXTS }, (_, i) => `${textOf(i)} at step ${i % 17}`);
const tokenize = createTokenizer();
let t0 = performance.now();
for (const text of texts) tokenize(text);
const tokenizeMs = performance.now() - t0;
t0 = performance.now();
await embedder.embed(texts);
const embedMs = performance.now() - t0;
const perS = (ms: number) => ((TEXTS / ms) * 1000).toFixed(0);
console.log(`tokenise only: ${perS(tokenizeMs)} texts/s`);
console.log(
  `local embeddings: ${perS(embedMs)} texts/s = ${(tokenizeMs / embedMs).toFixed(2)}x the tokeniser's rate`,
);

/**
 * Stores `STORED` failed runs with the failure texts `textAt(i)` and measures `similarFailures` through the
 * vector index and by the scan, each against reading the stored vectors alone, in one fresh database.
 */
async function measure(label: string, textAt: (i: number) => string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "vetted-emb-bench-"));
  const url = `file:${join(dir, "bench.db")}`;
  const client = createClient({ url, timeout: 5000 });
  await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client);
  await migrate(db);
  const engine = createRunsEngine({ db, secretsKey: KEY, embedder, pollMs: 20 });
  const flow = await engine.createFlow({
    name: "fails",
    steps: [{ id: "check", type: "assert", value: "a", equals: "b", message: "payment declined" }],
  });
  const seed = await engine.createRun({ flow_id: flow.id });
  engine.start();
  for (;;) {
    const [row] = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM runs_run_embeddings`);
    if ((row?.n ?? 0) > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await engine.stop();
  const columns = (await db.all<{ name: string }>(sql`PRAGMA table_info(runs_runs)`)).map((c) => c.name);
  const others = columns.filter((c) => c !== "id").join(", ");
  const stored = Array.from({ length: STORED }, (_, i) => textAt(i));
  const vectors = await embedder.embed(stored);
  for (let start = 0; start < STORED; start += 500) {
    await client.batch(
      stored.slice(start, start + 500).flatMap((text, k) => {
        const id = `run_bench_${start + k}`;
        const v = vectors[start + k] ?? new Float32Array(100);
        return [
          {
            sql: `INSERT INTO runs_runs (id, ${others}) SELECT ?, ${others} FROM runs_runs WHERE id = ?`,
            args: [id, seed.id],
          },
          {
            sql: "INSERT INTO runs_run_embeddings VALUES (?, 'local', 100, ?, '[\"assertion_failed\"]', ?, 0)",
            args: [id, Buffer.from(v.buffer, v.byteOffset, v.byteLength), text],
          },
        ];
      }),
      "write",
    );
  }
  // The stored rows were written as another process would: a worker's rounds backfill the index table.
  let t0 = performance.now();
  const filler = createRunsEngine({ db, secretsKey: KEY, embedder, pollMs: 20 });
  filler.start();
  for (;;) {
    const [row] = await db
      .all<{ n: number }>(
        sql`SELECT (SELECT max(rowid) FROM runs_run_embeddings) - (SELECT up_to FROM runs_run_vectors_copied) AS n`,
      )
      .catch(() => [{ n: 1 }]);
    if (row?.n === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await filler.stop();
  const backfill = performance.now() - t0;
  // A new process over the same database: its first query (the index built; the scan's copy not yet loaded).
  const second = createClient({ url, timeout: 5000 });
  const db2 = drizzle(second);
  const paths = { index: 0, scan: 0 };
  const observer = { failureSearch: (path: "index" | "scan") => void paths[path]++ };
  const byIndex = createRunsEngine({ db: db2, secretsKey: KEY, observer });
  const byScan = createRunsEngine({ db: db2, secretsKey: KEY, vectorIndex: false });
  t0 = performance.now();
  await byIndex.similarFailures(seed.id, 10);
  const indexFirst = performance.now() - t0;
  t0 = performance.now();
  await byScan.similarFailures(seed.id, 10);
  const scanFirst = performance.now() - t0;
  paths.index = 0;
  paths.scan = 0;
  const queries = Array.from({ length: QUERIES }, (_, i) =>
    i === 0 ? seed.id : `run_bench_${(i * 97) % STORED}`,
  );
  const readTimes: number[] = [];
  const indexTimes: number[] = [];
  const scanTimes: number[] = [];
  let same = 0;
  for (const query of queries) {
    t0 = performance.now();
    await db2.all(
      sql`SELECT run_id, vector, reason_codes, failure_text FROM runs_run_embeddings WHERE model = 'local'`,
    );
    readTimes.push(performance.now() - t0);
    t0 = performance.now();
    const a = await byIndex.similarFailures(query, 10);
    indexTimes.push(performance.now() - t0);
    t0 = performance.now();
    const b = await byScan.similarFailures(query, 10);
    scanTimes.push(performance.now() - t0);
    if (JSON.stringify(a) === JSON.stringify(b)) same++;
  }
  const base = percentile(readTimes, 95);
  const [distinct] = await db2.all<{ n: number }>(sql`SELECT count(*) AS n FROM runs_run_vectors_100`);
  console.log(
    `${label}: ${STORED} stored runs, ${distinct?.n ?? 0} distinct vectors; reading the stored vectors alone: p95 ${base.toFixed(1)} ms; the index's backfill: ${backfill.toFixed(0)} ms`,
  );
  const report = (name: string, times: number[], first: number) => {
    const p95 = percentile(times, 95);
    console.log(
      `  similarFailures, ${name}: p95 ${p95.toFixed(1)} ms = ${(p95 / base).toFixed(2)}x the bare read (target ≤ 50 ms); a new process's first query ${first.toFixed(0)} ms = ${(first / base).toFixed(1)}x`,
    );
  };
  report("vector index", indexTimes, indexFirst);
  report("in-memory scan", scanTimes, scanFirst);
  console.log(
    `  the index answered ${paths.index} of ${QUERIES} queries (the rest fell back to the scan); answers equal to the scan's: ${same} of ${QUERIES}`,
  );
  second.close();
  client.close();
  rmSync(dir, { recursive: true, force: true });
}

const KEY = Buffer.alloc(32, 7);
await measure("failures repeating word for word", (i) => `step failed at step check. ${textOf(i + 1)}`);
await measure("every failure different", (i) => `step failed at step check. ${textOf(i + 1)} order ${i}`);
console.log(
  `load average: ${(await import("node:os"))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
