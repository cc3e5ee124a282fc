import { and, eq, inArray, isNull, ne, or, sql } from "drizzle-orm";
import { loadRun } from "../../core/persist.js";
import type { RunsResources } from "../../core/resources.js";
import type { RunRow } from "../../core/views.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { runEmbeddings, runs } from "../../store/schema.js";
import { dot, type Embedder } from "./embedder.js";
import { addToIndex, createFailureIndex, type FailureIndex, scoreIndex, takeBest } from "./failure-index.js";
import {
  catchUpMirror,
  createFailureVectors,
  type FailureVectors,
  mirrorStored,
  nearestVectors,
  runsWithVectors,
  type VectorStore,
  vectorIndexReady,
} from "./failure-vectors.js";

/** Wait reasons that block a run (it cannot go on without a person), counted as failures for search. */
export const BLOCKING_REASONS = ["provider_protected_payment_step", "step_outcome_unknown"] as const;
const BATCH = 32;
/** The index path fetches this many times `limit` nearest vectors (at least MIN_FETCH), for filtering. */
const OVER_FETCH = 4;
const MIN_FETCH = 20;
/** Similarities this close count as a tie (the index ranks by float32 distances, the search by float64). */
const TIE_EPSILON = 1e-6;
/** Stored rows a search copies into the index table itself; more wait for the worker's rounds. */
const INLINE_CATCH_UP = 64;
/** Stored rows a worker round copies into the index table. */
const ROUND_CATCH_UP = 256;

/** One run whose failure reads like another's. */
export interface SimilarFailure {
  run_id: string;
  /** Cosine similarity of the two failure embeddings, -1..1. */
  similarity: number;
  reason_codes: string[];
  /** The reason codes both runs have. */
  shared_reason_codes: string[];
  failure_text: string;
}

const blockedReason = sql`json_extract(${runs.waitContext}, '$.reason_code')`;

/** Failed runs, and waiting runs blocked for a person. */
const failedOrBlocked = or(
  eq(runs.status, "failed"),
  and(inArray(runs.status, ["waiting_user", "waiting_otp"]), inArray(blockedReason, [...BLOCKING_REASONS])),
);

/** The reason codes of a run's failure: its end reason, or the reason it is blocked. */
export function reasonCodesOf(row: Pick<RunRow, "reason" | "waitContext">): string[] {
  return [row.reason, row.waitContext?.reason_code].filter((c): c is NonNullable<typeof c> => c != null);
}

/** The text embedded for a run's failure: why, where, and the (already redacted) error. */
export function failureTextOf(
  row: Pick<RunRow, "reason" | "waitContext" | "error" | "steps" | "cursor">,
): string {
  const step = row.steps[row.cursor];
  const where = step === undefined ? "" : ` at step ${step.id} (${step.type})`;
  const why = reasonCodesOf(row).join(", ").replaceAll("_", " ");
  const prompt = row.waitContext?.prompt ?? "";
  return `${why}${where}. ${row.error ?? ""} ${prompt}`.trim();
}

function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function fromBlob(b: ArrayBuffer | Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b instanceof Uint8Array ? b : new Uint8Array(b));
  return new Float32Array(copy.buffer);
}

/** What the failure-embedding functions share: the engine's resources, the embedder, and this process's state. */
interface EmbeddingsContext {
  readonly r: RunsResources;
  readonly embedder: Embedder | undefined;
  /** When the sweep last embedded a batch. */
  lastRound: number;
  /** Runs whose embedding failed in this process: not retried every round. */
  readonly refused: Set<string>;
  /** The stored vectors this process has read (rows are only ever added). */
  readonly index: FailureIndex;
  /** The background round under way, if any. */
  running: Promise<unknown> | undefined;
  /** Whether `similarFailures` may search through libSQL's vector index (else it always scans). */
  readonly useIndex: boolean;
  /** The vector index: support, mirror tables, what has been copied. */
  readonly vectors: FailureVectors;
  /** The index's reads and writes for a request (the writer's foreground lane). */
  readonly forRequest: VectorStore;
  /** The index's reads and writes for the worker's rounds (the writer's background lane: requests go first). */
  readonly inBackground: VectorStore;
}

async function store(ctx: EmbeddingsContext, rows: readonly RunRow[], via: VectorStore): Promise<number> {
  const { r, embedder } = ctx;
  if (embedder === undefined || rows.length === 0) return 0;
  const texts = rows.map(failureTextOf);
  const vectors = await embedder.embed(texts);
  const at = r.now();
  const values = rows.map((row, i) => ({
    runId: row.id,
    model: embedder.model,
    dimension: embedder.dimension,
    vector: toBlob(vectors[i] ?? new Float32Array(embedder.dimension)),
    reasonCodes: reasonCodesOf(row),
    failureText: texts[i] ?? "",
    createdAt: at,
  }));
  const mirrored = ctx.useIndex && (await vectorIndexReady(via, ctx.vectors, embedder.dimension, at));
  await via.write(async (tx) => {
    await tx.insert(runEmbeddings).values(values).onConflictDoNothing();
    if (mirrored) {
      await mirrorStored(
        tx,
        embedder.dimension,
        values.map((v) => v.runId),
      );
    }
  });
  return values.length;
}

/** Embeds failed or blocked runs not embedded yet (a batch a round, at most once a poll interval). */
async function embedPending(ctx: EmbeddingsContext): Promise<number> {
  const { r } = ctx;
  if (ctx.embedder === undefined) return 0;
  const at = r.now();
  if (at - ctx.lastRound < r.pollMs) return 0;
  ctx.lastRound = at;
  const rows = await r.db
    .select({ run: runs })
    .from(runs)
    .leftJoin(runEmbeddings, eq(runEmbeddings.runId, runs.id))
    .where(and(failedOrBlocked, isNull(runEmbeddings.runId)))
    .limit(BATCH + ctx.refused.size);
  const pending = rows
    .map((x) => x.run)
    .filter((row) => !ctx.refused.has(row.id))
    .slice(0, BATCH);
  try {
    return await store(ctx, pending, ctx.inBackground);
  } catch (err) {
    for (const row of pending) ctx.refused.add(row.id);
    throw err;
  }
}

/** A run's stored failure embedding, as the search needs it. */
interface OwnEmbedding {
  model: string;
  vector: Float32Array;
  reasonCodes: string[];
}

async function storedEmbedding(ctx: EmbeddingsContext, runId: string): Promise<OwnEmbedding | undefined> {
  const [row] = await ctx.r.db
    .select({
      model: runEmbeddings.model,
      vector: runEmbeddings.vector,
      reasonCodes: runEmbeddings.reasonCodes,
    })
    .from(runEmbeddings)
    .where(eq(runEmbeddings.runId, runId));
  return row === undefined ? undefined : { ...row, vector: fromBlob(row.vector) };
}

/** `runId`'s failure embedding (stored, else embedded now when it is failed or blocked and not yet). */
async function ownEmbedding(ctx: EmbeddingsContext, runId: string): Promise<OwnEmbedding | undefined> {
  const { r } = ctx;
  // A run with a stored embedding exists (embeddings are stored for stored runs only): no need to read it.
  const stored = await storedEmbedding(ctx, runId);
  if (stored !== undefined) return stored;
  const row = await loadRun(r.db, runId);
  if (ctx.embedder === undefined) return undefined;
  const [blocked] = await r.db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.id, runId), failedOrBlocked));
  if (blocked === undefined) return undefined;
  await store(ctx, [row], ctx.forRequest);
  return storedEmbedding(ctx, runId);
}

/**
 * The failed or blocked runs whose failure embeddings are closest to `runId`'s, best first (at most
 * `limit`, 1..20; similarity desc, then run id); empty when the run has not failed or nothing is embedded.
 * Through libSQL's vector index when the database has one ({@link searchByIndex}), else (or when the index
 * cannot answer for sure) by an exact scan of the in-memory copy ({@link searchByScan}).
 * @throws RUN_NOT_FOUND, REQUEST_INVALID (limit)
 */
async function similarFailures(ctx: EmbeddingsContext, runId: string, limit = 5): Promise<SimilarFailure[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 20) {
    throw new InvalidInputError("REQUEST_INVALID", "limit must be a whole number from 1 to 20.", { limit });
  }
  const own = await ownEmbedding(ctx, runId);
  if (own === undefined) return [];
  if (ctx.useIndex && (await vectorIndexReady(ctx.forRequest, ctx.vectors, own.vector.length, ctx.r.now()))) {
    const found = await searchByIndex(ctx, runId, own, limit);
    if (found !== undefined) {
      ctx.r.observer.failureSearch?.("index");
      return found;
    }
  }
  ctx.r.observer.failureSearch?.("scan");
  return searchByScan(ctx, runId, own, limit);
}

function similarFailure(
  own: OwnEmbedding,
  runId: string,
  similarity: number,
  codes: string[],
  failureText: string,
): SimilarFailure {
  const ownCodes = new Set(own.reasonCodes);
  return {
    run_id: runId,
    similarity,
    reason_codes: codes,
    shared_reason_codes: codes.filter((code) => ownCodes.has(code)),
    failure_text: failureText,
  };
}

/**
 * The index path: the `limit × OVER_FETCH` nearest distinct vectors by libSQL's index, then the stored
 * failures with them that count (same model, not the run itself, still failed or blocked), ranked by the exact
 * similarity. Undefined (so: scan) when the over-fetch could not settle the answer: fewer than `limit` runs
 * left after filtering, or the last one kept no nearer than the farthest vector fetched (a vector not fetched
 * could tie it, and its runs come first by run id).
 */
async function searchByIndex(
  ctx: EmbeddingsContext,
  runId: string,
  own: OwnEmbedding,
  limit: number,
): Promise<SimilarFailure[] | undefined> {
  const { db } = ctx.r;
  const k = Math.max(limit * OVER_FETCH, MIN_FETCH);
  // A backlog (the first use of an index over many stored rows) is copied by the worker's rounds: scan meanwhile.
  if (!(await catchUpMirror(ctx.forRequest, ctx.vectors, own.vector.length, INLINE_CATCH_UP)))
    return undefined;
  const near = (await nearestVectors(db, own.vector, k))
    .map((v) => ({ ...v, similarity: dot(own.vector, fromBlob(v.vector)) }))
    .sort((a, b) => b.similarity - a.similarity || a.id - b.id);
  const floor = near.at(-1)?.similarity ?? Number.NEGATIVE_INFINITY;
  const where = and(eq(runEmbeddings.model, own.model), ne(runEmbeddings.runId, runId), failedOrBlocked);
  let found: SimilarFailure[] = [];
  // The nearest vectors a batch at a time, until no vector left can change the best `limit`.
  for (let at = 0; at < near.length; at += limit) {
    const next = near[at];
    const last = found[limit - 1];
    if (next === undefined || (last !== undefined && next.similarity < last.similarity - TIE_EPSILON)) break;
    const batch = near.slice(at, at + limit);
    const similarity = new Map(batch.map((v) => [v.id, v.similarity]));
    const rows = await runsWithVectors(db, batch, where ?? sql`1`, limit);
    found = found
      .concat(
        rows.map((row) =>
          similarFailure(
            own,
            row.runId,
            similarity.get(row.vectorId) ?? Number.NEGATIVE_INFINITY,
            JSON.parse(row.reasonCodes) as string[],
            row.failureText,
          ),
        ),
      )
      .sort((a, b) => b.similarity - a.similarity || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0))
      .slice(0, limit);
  }
  if (near.length < k) return found;
  const last = found[limit - 1];
  if (last === undefined || last.similarity <= floor + TIE_EPSILON) return undefined;
  return found;
}

/**
 * The scan path: a typed scan of the in-memory copy and a partial selection of the best, checked against
 * the database in slices (only runs still failed or blocked count: a blocked run may have gone on). Exact.
 */
async function searchByScan(
  ctx: EmbeddingsContext,
  runId: string,
  own: OwnEmbedding,
  limit: number,
): Promise<SimilarFailure[]> {
  const index = await refreshIndex(ctx);
  const scores = scoreIndex(index, own.vector, own.model, runId);
  const found: SimilarFailure[] = [];
  for (;;) {
    const slice = takeBest(index, scores, limit * 4);
    if (slice.length === 0) break;
    const live = await ctx.r.db
      .select({ id: runs.id })
      .from(runs)
      .where(
        and(
          inArray(
            runs.id,
            slice.map((i) => index.runIds[i] ?? ""),
          ),
          failedOrBlocked,
        ),
      );
    const ids = new Set(live.map((x) => x.id));
    for (const i of slice) {
      const id = index.runIds[i] ?? "";
      if (!ids.has(id) || found.length >= limit) continue;
      const similarity = dot(own.vector, index.vectors[i] ?? new Float32Array(own.vector.length));
      found.push(
        similarFailure(own, id, similarity, index.reasonCodes[i] ?? [], index.failureTexts[i] ?? ""),
      );
    }
    if (found.length >= limit) break;
  }
  return found;
}

/** This process's copy of the stored vectors, brought up to date by reading only rows added since. */
async function refreshIndex(ctx: EmbeddingsContext): Promise<FailureIndex> {
  const added = await ctx.r.db
    .select({
      rowid: sql<number>`rowid`,
      runId: runEmbeddings.runId,
      model: runEmbeddings.model,
      vector: runEmbeddings.vector,
      reasonCodes: runEmbeddings.reasonCodes,
      failureText: runEmbeddings.failureText,
    })
    .from(runEmbeddings)
    .where(sql`rowid > ${ctx.index.upTo}`)
    .orderBy(sql`rowid`);
  for (const row of added) {
    addToIndex(ctx.index, { ...row, vector: fromBlob(row.vector) });
    ctx.index.upTo = Math.max(ctx.index.upTo, row.rowid);
  }
  return ctx.index;
}

/**
 * Copies a round of stored embeddings into the vector index tables (the backfill): of the embedder's
 * dimension, and of those searched in this process.
 */
async function fillIndex(ctx: EmbeddingsContext): Promise<void> {
  const { r, embedder } = ctx;
  if (!ctx.useIndex) return;
  if (embedder !== undefined)
    await vectorIndexReady(ctx.inBackground, ctx.vectors, embedder.dimension, r.now());
  for (const dimension of [...ctx.vectors.mirrors.keys()]) {
    await catchUpMirror(ctx.inBackground, ctx.vectors, dimension, ROUND_CATCH_UP);
  }
}

/**
 * The worker's chore: starts a round of {@link embedPending} and {@link fillIndex} in the background (never awaited by the
 * worker, so loading a model or a slow remote model never holds up runs).
 */
function embedInBackground(ctx: EmbeddingsContext): Promise<void> {
  if (ctx.running !== undefined || (ctx.embedder === undefined && !ctx.useIndex)) return Promise.resolve();
  ctx.running = embedPending(ctx)
    .then(() => fillIndex(ctx))
    .catch((err: unknown) => ctx.r.observer.error?.("could not embed failed runs", err))
    .finally(() => {
      ctx.running = undefined;
    });
  return Promise.resolve();
}

/**
 * Failure embeddings: the worker's sweep embeds the failure text of each failed or blocked run once (with the
 * configured embedder) into `runs_run_embeddings` (and into the dimension's vector-index table, when the
 * database has libSQL's vector functions); `similarFailures` ranks the other failed or blocked runs by cosine
 * similarity to a run's failure, through the vector index when there is one and `vectorIndex` is on, else
 * (or when the index cannot settle the answer) by a brute-force scan of the stored vectors of the same model.
 */
export function createFailureEmbeddings(
  r: RunsResources,
  embedder: Embedder | undefined,
  vectorIndex = true,
) {
  const ctx: EmbeddingsContext = {
    r,
    embedder,
    lastRound: Number.NEGATIVE_INFINITY,
    refused: new Set<string>(),
    index: createFailureIndex(),
    running: undefined,
    useIndex: vectorIndex,
    vectors: createFailureVectors({ onError: (message, err) => r.observer.error?.(message, err) }),
    forRequest: { read: r.db, write: (fn) => r.write(fn) },
    inBackground: { read: r.db, write: (fn) => r.write(fn, { background: true }) },
  };
  return {
    embedPending: (): Promise<number> => embedPending(ctx),
    embedInBackground: (): Promise<void> => embedInBackground(ctx),
    similarFailures: (runId: string, limit = 5): Promise<SimilarFailure[]> =>
      similarFailures(ctx, runId, limit),
  };
}
