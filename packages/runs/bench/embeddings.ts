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
import { createLocalEmbedder, createRunsEngine, createTokenizer, migrate } from "../src/index.js";

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

const dir = mkdtempSync(join(tmpdir(), "vetted-emb-bench-"));
const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);
const engine = createRunsEngine({ db, secretsKey: Buffer.alloc(32, 7), embedder, pollMs: 20 });
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
const stored = Array.from({ length: STORED }, (_, i) => `step failed at step check. ${textOf(i + 1)}`);
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
/** Query runs spread over the stored ones, and the seed (whose failure text none of them shares word for word). */
const queries = Array.from({ length: QUERIES }, (_, i) =>
  i === 0 ? seed.id : `run_bench_${(i * 97) % STORED}`,
);
const paths = { index: 0, scan: 0 };
const observer = { failureSearch: (path: "index" | "scan") => void paths[path]++ };
const byIndex = createRunsEngine({ db, secretsKey: Buffer.alloc(32, 7), observer });
const byScan = createRunsEngine({ db, secretsKey: Buffer.alloc(32, 7), vectorIndex: false });
t0 = performance.now();
await byIndex.similarFailures(seed.id, 10);
const indexFirst = performance.now() - t0;
t0 = performance.now();
await byScan.similarFailures(seed.id, 10);
const scanFirst = performance.now() - t0;
paths.index = 0;
paths.scan = 0;
const readTimes: number[] = [];
const indexTimes: number[] = [];
const scanTimes: number[] = [];
let same = 0;
for (const query of queries) {
  t0 = performance.now();
  await db.all(
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
const report = (name: string, times: number[], first: number) => {
  const p95 = percentile(times, 95);
  console.log(
    `similarFailures over ${STORED} stored runs, ${name}: p95 ${p95.toFixed(1)} ms = ${(p95 / base).toFixed(2)}x the bare read (target ≤ 50 ms); first query ${first.toFixed(0)} ms = ${(first / base).toFixed(1)}x`,
  );
};
const [distinct] = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM runs_run_vectors_100`);
console.log(
  `reading ${STORED} stored vectors alone: p95 ${base.toFixed(1)} ms (${distinct?.n ?? 0} distinct vectors)`,
);
report("vector index", indexTimes, indexFirst);
report("in-memory scan", scanTimes, scanFirst);
console.log(
  `index path answered ${paths.index} of ${QUERIES} queries (the rest fell back to the scan); answers equal to the scan's: ${same} of ${QUERIES}`,
);
await byIndex.stop();
await byScan.stop();
client.close();
rmSync(dir, { recursive: true, force: true });
