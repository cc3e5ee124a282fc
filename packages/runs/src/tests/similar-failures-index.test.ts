import type { Client } from "@libsql/client";
import { createClient } from "@libsql/client";
import { runTransaction } from "@vetted/store";
import type { SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFailureVectors,
  type VectorStore,
  vectorIndexReady,
} from "../lanes/embeddings/failure-vectors.js";
import { createRunsEngine } from "../platform.js";
import { openTestEngine, TEST_SECRETS_KEY, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DIM = 100;

/** A deterministic pseudo-random number generator (mulberry32). */
function randoms(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unit(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** One stored failure to plant: its run id, vector, and optionally another model or a run no longer failed. */
interface Planted {
  id: string;
  vector: Float32Array;
  model?: string;
  status?: "failed" | "success" | "waiting_user";
}

/** Stores runs (copies of `seedId` with their own id and status) and their embeddings, as another writer would. */
async function plant(client: Client, seedId: string, rows: readonly Planted[]): Promise<void> {
  const info = await client.execute("PRAGMA table_info(runs_runs)");
  const others = info.rows
    .map((c) => String(c.name))
    .filter((c) => c !== "id" && c !== "status")
    .join(", ");
  await client.batch(
    rows.flatMap((row) => [
      {
        sql: `INSERT INTO runs_runs (id, status, ${others}) SELECT ?, ?, ${others} FROM runs_runs WHERE id = ?`,
        args: [row.id, row.status ?? "failed", seedId],
      },
      {
        sql: "INSERT INTO runs_run_embeddings VALUES (?, ?, ?, ?, '[\"assertion_failed\"]', ?, 0)",
        args: [
          row.id,
          row.model ?? "local",
          DIM,
          Buffer.from(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength),
          `failure of ${row.id}`,
        ],
      },
    ]),
    "write",
  );
}

/** A migrated database with one failed run (the seed the planted runs copy), an index engine and a scan engine. */
async function openPair() {
  const paths: Array<"index" | "scan"> = [];
  const t = await openTestEngine({ observer: { failureSearch: (path) => paths.push(path) } });
  cleanups.push(t.close);
  const scan = createRunsEngine({ db: t.db, secretsKey: TEST_SECRETS_KEY, vectorIndex: false, pollMs: 50 });
  cleanups.push(() => scan.stop());
  const flow = await t.engine.createFlow({
    name: "fails",
    steps: [{ id: "check", type: "assert", value: "a", equals: "b", message: "payment declined" }],
  });
  const seed = await t.engine.createRun({ flow_id: flow.id });
  t.engine.start();
  await waitFor(
    () => t.engine.getRun(seed.id),
    (x) => x.status === "failed",
    10_000,
  );
  await t.engine.stop();
  return { ...t, scan, seedId: seed.id, paths };
}

describe("similar failures through libSQL's vector index", () => {
  it("ranks as the scan does: clusters, exact ties, other models and runs gone on", async () => {
    const t = await openPair();
    const next = randoms(16);
    const centres = Array.from({ length: 6 }, () => Float32Array.from({ length: DIM }, () => next() - 0.5));
    const rows: Planted[] = [];
    for (let i = 0; i < 240; i++) {
      const centre = centres[i % centres.length] ?? new Float32Array(DIM);
      const vector = unit(centre.map((x) => x + (next() - 0.5) * 0.4));
      const earlier = rows[i - 7];
      // Every fifth run fails exactly like an earlier one: ties, broken by run id.
      const same = i % 5 === 0 && earlier !== undefined ? earlier.vector : vector;
      rows.push({
        id: `run_p${String((i * 37) % 240).padStart(3, "0")}`,
        vector: same,
        ...(i % 11 === 0 ? { model: "other" } : {}),
        ...(i % 13 === 0 ? { status: "success" as const } : {}),
      });
    }
    await plant(t.client, t.seedId, rows);
    for (const query of ["run_p000", "run_p037", "run_p111", "run_p200"]) {
      for (const limit of [1, 5, 20]) {
        const byIndex = await t.engine.similarFailures(query, limit);
        const byScan = await t.scan.similarFailures(query, limit);
        expect(byIndex.map((x) => x.run_id)).toEqual(byScan.map((x) => x.run_id));
        expect(byIndex).toEqual(byScan);
        expect(byIndex).toHaveLength(limit);
      }
    }
    expect(t.paths.filter((p) => p === "index").length).toBeGreaterThan(0);
    // Each distinct vector once.
    const distinct = new Set(rows.map((r) => Buffer.from(r.vector.buffer).toString("hex")));
    const mirror = await t.client.execute("SELECT count(*) AS n FROM runs_run_vectors_100");
    expect(mirror.rows[0]?.n).toBe(distinct.size);
    expect(distinct.size).toBeLessThan(rows.length);
  });

  it("falls back to the exact scan when the nearest runs are filtered out; finds runs failing word for word", async () => {
    const t = await openPair();
    const next = randoms(7);
    const near = unit(Float32Array.from({ length: DIM }, () => next() - 0.5));
    // The 30 nearest runs have gone on (not failed any more), then 40 far ones.
    const rows: Planted[] = [{ id: "run_query", vector: near }];
    for (let i = 0; i < 30; i++) {
      const vector = unit(near.map((x) => x + (next() - 0.5) * 0.01));
      rows.push({ id: `run_gone${i}`, vector, status: "success" });
    }
    for (let i = 0; i < 40; i++) {
      rows.push({ id: `run_far${i}`, vector: unit(Float32Array.from({ length: DIM }, () => next() - 0.5)) });
    }
    await plant(t.client, t.seedId, rows);
    const farthest = await t.engine.similarFailures("run_query", 5);
    expect(farthest).toHaveLength(5);
    expect(farthest).toEqual(await t.scan.similarFailures("run_query", 5));
    expect(t.paths).toEqual(["scan"]);
    // 30 runs fail exactly like the query: one vector, found through the index, lowest run ids first.
    const same: Planted[] = Array.from({ length: 30 }, (_, i) => ({
      id: `run_same${String(29 - i).padStart(2, "0")}`,
      vector: near,
    }));
    await plant(t.client, t.seedId, same);
    const byIndex = await t.engine.similarFailures("run_query", 5);
    expect(byIndex.map((x) => x.run_id)).toEqual([
      "run_same00",
      "run_same01",
      "run_same02",
      "run_same03",
      "run_same04",
    ]);
    expect(byIndex).toEqual(await t.scan.similarFailures("run_query", 5));
    expect(t.paths).toEqual(["scan", "index"]);
  });

  it("falls back to the exact scan when distinct vectors tie with the farthest one fetched", async () => {
    const t = await openPair();
    const axis = (i: number) => Float32Array.from({ length: DIM }, (_, d) => (d === i ? 1 : 0));
    // 40 distinct vectors, each as near the query (axis 0) as the others: the 20 fetched cannot settle which
    // come first by run id. The lowest run ids are stored last.
    const ties: Planted[] = Array.from({ length: 40 }, (_, i) => ({
      id: `run_tie${String(39 - i).padStart(2, "0")}`,
      vector: unit(axis(0).map((x, d) => x + (d === i + 1 ? 0.5 : 0))),
    }));
    await plant(t.client, t.seedId, [{ id: "run_query", vector: axis(0) }, ...ties]);
    const found = await t.engine.similarFailures("run_query", 5);
    expect(found.map((x) => x.run_id)).toEqual([
      "run_tie00",
      "run_tie01",
      "run_tie02",
      "run_tie03",
      "run_tie04",
    ]);
    expect(found).toEqual(await t.scan.similarFailures("run_query", 5));
    expect(t.paths).toEqual(["scan"]);
  });

  it("scans while the index has a backlog to copy, which the worker's rounds copy", async () => {
    const t = await openPair();
    const next = randoms(5);
    const rows: Planted[] = Array.from({ length: 400 }, (_, i) => ({
      id: `run_b${String(i).padStart(3, "0")}`,
      vector: unit(Float32Array.from({ length: DIM }, () => next() - 0.5)),
    }));
    await plant(t.client, t.seedId, rows);
    const exact = await t.scan.similarFailures("run_b399", 10);
    expect(await t.engine.similarFailures("run_b399", 10)).toEqual(exact);
    expect(t.paths).toEqual(["scan"]);
    t.engine.start();
    await waitFor(
      async () => {
        await t.engine.similarFailures("run_b399", 10);
        return t.paths.at(-1);
      },
      (path) => path === "index",
      20_000,
    );
    expect(await t.engine.similarFailures("run_b399", 10)).toEqual(exact);
    const mirror = await t.client.execute("SELECT count(*) AS n FROM runs_run_vectors_100");
    expect(mirror.rows[0]?.n).toBe(400);
    // A new process finds the index filled (how far is kept in the database): no backlog of its own.
    const other = createClient({ url: `file:${t.file}`, timeout: 5000 });
    cleanups.push(() => other.close());
    const paths: string[] = [];
    const fresh = createRunsEngine({
      db: drizzle(other),
      secretsKey: TEST_SECRETS_KEY,
      observer: { failureSearch: (path) => paths.push(path) },
    });
    cleanups.push(() => fresh.stop());
    expect(await fresh.similarFailures("run_b399", 10)).toEqual(exact);
    expect(paths).toEqual(["index"]);
  });

  it("finds a run another connection stored after the index was built", async () => {
    const t = await openPair();
    const next = randoms(3);
    const rows: Planted[] = Array.from({ length: 50 }, (_, i) => ({
      id: `run_old${i}`,
      vector: unit(Float32Array.from({ length: DIM }, () => next() - 0.5)),
    }));
    await plant(t.client, t.seedId, rows);
    const before = await t.engine.similarFailures("run_old0", 3);
    expect(before).toHaveLength(3);
    const other = createClient({ url: `file:${t.file}`, timeout: 5000 });
    cleanups.push(() => other.close());
    const query = rows[0]?.vector ?? new Float32Array(DIM);
    await plant(other, t.seedId, [{ id: "run_new", vector: unit(query.map((x) => x + 0.001)) }]);
    const after = await t.engine.similarFailures("run_old0", 3);
    expect(after[0]?.run_id).toBe("run_new");
    expect(after[0]?.similarity).toBeGreaterThan(0.99);
    expect(after.slice(1)).toEqual(before.slice(0, 2));
    expect(t.paths).toEqual(["index", "index"]);
    const engine = createRunsEngine({ db: drizzle(other), secretsKey: TEST_SECRETS_KEY });
    cleanups.push(() => engine.stop());
    expect(await engine.similarFailures("run_old0", 3)).toEqual(after);
  });

  it("finds out once that a database has no vector functions, and then never tries to index", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const asked: string[] = [];
    // The libSQL database, less its vector functions (as an older server or plain SQLite answers).
    const withoutVectors: VectorStore = {
      read: {
        all: <T>(_query: SQL): Promise<T[]> => {
          asked.push("all");
          return Promise.reject(new Error("SQLITE_ERROR: no such function: vector_distance_cos"));
        },
      },
      write: (fn) => {
        asked.push("write");
        return runTransaction(t.db, fn);
      },
    };
    const state = createFailureVectors();
    expect(await vectorIndexReady(withoutVectors, state, 100, 0)).toBe(false);
    // Even past the retry delay: a database without the functions is not asked again.
    expect(await vectorIndexReady(withoutVectors, state, 100, state.retryMs * 2)).toBe(false);
    expect(await vectorIndexReady(withoutVectors, state, 8, 0)).toBe(false);
    expect(asked).toEqual(["all"]);
    const tables = await t.client.execute(
      "SELECT name FROM sqlite_master WHERE name LIKE 'runs_run_vectors%'",
    );
    expect(tables.rows).toEqual([]);
  });
  it("tries a vector table again a while after its creation failed (another connection held the write lock)", async () => {
    const t = await openTestEngine({}, 50);
    cleanups.push(t.close);
    // A second connection to the same file holds SQLite's write lock, so creating the table meets a busy database.
    await t.engine.stop(); // its own background rounds stay out of this
    const holder = createClient({ url: `file:${t.file}` });
    cleanups.push(() => holder.close());
    const held = await holder.transaction("write");
    await held.execute("CREATE TABLE held_for_the_test (a)");
    const told: string[] = [];
    const state = createFailureVectors({ retryMs: 60_000, onError: (message) => told.push(message) });
    const store: VectorStore = { read: t.db, write: (fn) => runTransaction(t.db, fn) };
    expect(await vectorIndexReady(store, state, DIM, 1_000)).toBe(false);
    expect(told).toEqual([expect.stringContaining(`runs_run_vectors_${DIM}`)]);
    await held.rollback();
    // Within the delay the failure stands (no attempt per search), past it the table is made.
    expect(await vectorIndexReady(store, state, DIM, 30_000)).toBe(false);
    expect(told).toHaveLength(1);
    expect(await vectorIndexReady(store, state, DIM, 61_000)).toBe(true);
    const tables = await t.client.execute(
      `SELECT name FROM sqlite_master WHERE name = 'runs_run_vectors_${DIM}'`,
    );
    expect(tables.rows).toHaveLength(1);
  });
});
