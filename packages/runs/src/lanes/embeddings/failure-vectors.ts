import type { Tx } from "@vetted/store";
import { type SQL, sql } from "drizzle-orm";

/**
 * libSQL's vector index over stored failure embeddings: one table a dimension, `runs_run_vectors_<dimension>`,
 * holding each distinct stored vector once (`vector F32_BLOB(<dimension>) UNIQUE`) under a cosine
 * `libsql_vector_idx`; runs are found from a vector by `runs_run_embeddings_vector_idx`. Distinct vectors
 * because failures repeat word for word and libSQL's DiskANN graph keeps only one of several equal vectors
 * reachable: runs failing the same way would go missing. The tables are created on demand, once the engine
 * has found that the database has the vector functions (a database without them still migrates, and is
 * searched by scan), and filled from `runs_run_embeddings` by rowid, how far kept in `runs_run_vectors_copied`
 * (all rows in rounds on first use, the backfill; afterwards the rows stored by processes that do not mirror).
 */
export interface FailureVectors {
  /** Whether the database has libSQL's vector functions: found out once per engine. */
  support: Promise<boolean> | undefined;
  /** The dimensions whose table this engine has made sure of. */
  readonly mirrors: Map<number, Mirror>;
  /** How long after a failed creation of a dimension's table it is tried again (ms). */
  readonly retryMs: number;
  /** Told why a table could not be made (searches scan meanwhile). */
  readonly onError: (message: string, err: unknown) => void;
}

/** One dimension's table, as this engine knows it. */
interface Mirror {
  /** False: it could not be made (so: scan). */
  readonly ready: Promise<boolean>;
  /** When an attempt to make it failed (the database has the functions: busy, full, read-only). */
  failedAt?: number;
}

/** One of the nearest distinct stored vectors. */
export interface NearVector {
  id: number;
  vector: ArrayBuffer | Uint8Array;
}

/** A stored failure with one of the nearest vectors. */
export interface NearRun {
  /** The {@link NearVector} id. */
  vectorId: number;
  runId: string;
  reasonCodes: string;
  failureText: string;
}

/** What the vector index reads through: a Drizzle libSQL database (or one less its vector functions). */
export interface Queryable {
  all<T>(query: SQL): PromiseLike<T[]>;
}

/**
 * What the vector index writes through: the one writer, in its background lane (requests go first). Every
 * write of the index is a transaction of it: a write beside it would meet the writer's lock as "busy".
 */
export type BackgroundWrite = (fn: (tx: Tx) => Promise<void>) => Promise<void>;

/** Where the vector index reads and writes. */
export interface VectorStore {
  read: Queryable;
  write: BackgroundWrite;
}

/** How far each dimension's table has been filled: the last `runs_run_embeddings` rowid copied. */
const COPIED = "runs_run_vectors_copied";

/**
 * No vector index known yet. A table that could not be made is tried again `retryMs` later (default a
 * minute): a creation that met a busy or full database is not given up for the life of the process.
 */
export function createFailureVectors(
  options: { retryMs?: number; onError?: (message: string, err: unknown) => void } = {},
): FailureVectors {
  return {
    support: undefined,
    mirrors: new Map(),
    retryMs: options.retryMs ?? 60_000,
    onError: options.onError ?? (() => undefined),
  };
}

/** The mirror table of `dimension` (a whole number, so safe to name in SQL). */
export function mirrorTable(dimension: number): string {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 65_536) {
    throw new RangeError(`no vector table for dimension ${dimension}`);
  }
  return `runs_run_vectors_${dimension}`;
}

async function detect(db: Queryable): Promise<boolean> {
  try {
    await db.all(sql`SELECT vector_distance_cos(vector32('[1,0]'), vector32('[0,1]')) AS d`);
    return true;
  } catch {
    return false;
  }
}

async function createMirror(db: VectorStore, state: FailureVectors, dimension: number): Promise<boolean> {
  const table = mirrorTable(dimension);
  try {
    await db.write(async (tx) => {
      await tx.run(
        sql.raw(`CREATE TABLE IF NOT EXISTS ${table} (vector F32_BLOB(${dimension}) NOT NULL UNIQUE)`),
      );
      await tx.run(
        sql.raw(
          `CREATE INDEX IF NOT EXISTS ${table}_idx ON ${table} (libsql_vector_idx(vector, 'metric=cosine'))`,
        ),
      );
      await tx.run(
        sql.raw(
          `CREATE TABLE IF NOT EXISTS ${COPIED} (dimension INTEGER PRIMARY KEY NOT NULL, up_to INTEGER NOT NULL)`,
        ),
      );
    });
    return true;
  } catch (err) {
    const retry = Math.round(state.retryMs / 1000);
    state.onError(
      `could not create the vector index table ${table} (searching by scan; retried in ${retry} s)`,
      err,
    );
    return false;
  }
}

/**
 * Whether `dimension` can be searched through the vector index: detects support once, then creates the
 * mirror table and its index (idempotent across processes) once, or again `retryMs` after an attempt that
 * failed (`at`: now, in ms). Never throws: false means scan.
 */
export function vectorIndexReady(
  db: VectorStore,
  state: FailureVectors,
  dimension: number,
  at: number,
): Promise<boolean> {
  state.support ??= detect(db.read);
  const known = state.mirrors.get(dimension);
  if (known !== undefined && (known.failedAt === undefined || at - known.failedAt < state.retryMs)) {
    return known.ready;
  }
  const support = state.support;
  const mirror: Mirror = {
    ready: support.then(async (yes) => {
      if (!yes) return false;
      const made = await createMirror(db, state, dimension);
      if (!made) mirror.failedAt = at;
      return made;
    }),
  };
  state.mirrors.set(dimension, mirror);
  return mirror.ready;
}

/**
 * Copies stored embeddings of `dimension` not in its table yet, at most `max` stored rows past the last rowid
 * copied (all rows, in rounds, the first time: the backfill; afterwards the rows other processes stored, or
 * engines that do not mirror). One read of the highest rowid when nothing is new. True when it is caught up.
 */
export async function catchUpMirror(
  db: VectorStore,
  state: FailureVectors,
  dimension: number,
  max: number,
): Promise<boolean> {
  const mirror = state.mirrors.get(dimension);
  if (mirror === undefined || !(await mirror.ready)) return false;
  const [copied] = await db.read.all<{ last: number | null; from: number | null }>(
    sql`SELECT (SELECT max(rowid) FROM runs_run_embeddings) AS last,
      (SELECT up_to FROM ${sql.raw(COPIED)} WHERE dimension = ${dimension}) AS "from"`,
  );
  const last = copied?.last ?? 0;
  const from = copied?.from ?? 0;
  if (last <= from) return true;
  const [cut] = await db.read.all<{ rowid: number }>(
    sql`SELECT rowid FROM runs_run_embeddings WHERE rowid > ${from} ORDER BY rowid LIMIT 1 OFFSET ${max - 1}`,
  );
  const upTo = Math.min(cut?.rowid ?? last, last);
  await db.write(async (tx) => {
    await tx.run(
      sql`INSERT OR IGNORE INTO ${sql.raw(mirrorTable(dimension))} (vector)
        SELECT vector FROM runs_run_embeddings
        WHERE rowid > ${from} AND rowid <= ${upTo} AND dimension = ${dimension}`,
    );
    // In the same transaction: the copy and how far it got commit together.
    await tx.run(
      sql`INSERT INTO ${sql.raw(COPIED)} (dimension, up_to) VALUES (${dimension}, ${upTo})
        ON CONFLICT (dimension) DO UPDATE SET up_to = max(up_to, excluded.up_to)`,
    );
  });
  return upTo >= last;
}

/** Mirrors the embeddings of `runIds` just stored in `tx` (the same transaction), into `dimension`'s table. */
export async function mirrorStored(tx: Tx, dimension: number, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.run(
    sql`INSERT OR IGNORE INTO ${sql.raw(mirrorTable(dimension))} (vector)
      SELECT vector FROM runs_run_embeddings
      WHERE dimension = ${dimension} AND run_id IN (${sql.join(
        runIds.map((id) => sql`${id}`),
        sql`, `,
      )})`,
  );
}

/** The `k` distinct stored vectors of `query`'s dimension nearest to it by the index (approximate: DiskANN). */
export async function nearestVectors(db: Queryable, query: Float32Array, k: number): Promise<NearVector[]> {
  const table = mirrorTable(query.length);
  const blob = Buffer.from(query.buffer, query.byteOffset, query.byteLength);
  return db.all<NearVector>(sql`
    SELECT m.rowid AS id, m.vector AS vector
    FROM vector_top_k(${`${table}_idx`}, ${blob}, ${k}) AS k
    JOIN ${sql.raw(table)} AS m ON m.rowid = k.id`);
}

/**
 * The stored failures with the vectors `near` that `where` (an SQL condition on `runs_run_embeddings` and
 * `runs_runs`) keeps: at most `perVector` a vector, the lowest run ids (one ordered index range a vector,
 * `runs_run_embeddings_vector_idx`, so a failure repeated thousands of times costs no more than `perVector`).
 */
export async function runsWithVectors(
  db: Queryable,
  near: readonly NearVector[],
  where: SQL,
  perVector: number,
): Promise<NearRun[]> {
  if (near.length === 0) return [];
  const arms = near.map(
    (v) => sql`SELECT * FROM (
      SELECT ${v.id} AS vectorId, runs_run_embeddings.run_id AS runId, runs_run_embeddings.reason_codes AS reasonCodes,
        runs_run_embeddings.failure_text AS failureText
      FROM runs_run_embeddings CROSS JOIN runs_runs ON runs_runs.id = runs_run_embeddings.run_id
      WHERE runs_run_embeddings.vector = ${Buffer.from(v.vector instanceof Uint8Array ? v.vector : new Uint8Array(v.vector))}
        AND ${where}
      ORDER BY runs_run_embeddings.run_id LIMIT ${perVector})`,
  );
  return db.all<NearRun>(sql.join(arms, sql` UNION ALL `));
}
