import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { readRun } from "../../core/persist.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { runEmbeddings, runs } from "../../store/schema.js";
import { dot } from "./embedder.js";
import {
  type EmbeddingsContext,
  failedOrBlocked,
  fromBlob,
  type SimilarFailure,
  storeFailures,
} from "./failure-context.js";
import { addToIndex, type FailureIndex, scoreIndex, takeBest } from "./failure-index.js";
import { catchUpMirror, nearestVectors, runsWithVectors, vectorIndexReady } from "./failure-vectors.js";

/** The index path fetches this many times `limit` nearest vectors (at least MIN_FETCH), for filtering. */
const OVER_FETCH = 4;
const MIN_FETCH = 20;
/** Similarities this close count as a tie (the index ranks by float32 distances, the search by float64). */
const TIE_EPSILON = 1e-6;
/** Stored rows a search copies into the index table itself; more wait for the worker's rounds. */
const INLINE_CATCH_UP = 64;

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
  const row = await readRun(r.db, runId);
  if (ctx.embedder === undefined) return undefined;
  const [blocked] = await r.db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.id, runId), failedOrBlocked));
  if (blocked === undefined) return undefined;
  await storeFailures(ctx, [row], ctx.forRequest);
  return storedEmbedding(ctx, runId);
}

/**
 * The failed or blocked runs whose failure embeddings are closest to `runId`'s, best first (at most
 * `limit`, 1..20; similarity desc, then run id); empty when the run has not failed or nothing is embedded.
 * Through libSQL's vector index when the database has one ({@link searchByIndex}), else (or when the index
 * cannot answer for sure) by an exact scan of the in-memory copy ({@link searchByScan}).
 * @throws RUN_NOT_FOUND, REQUEST_INVALID (limit)
 */
export async function similarFailures(
  ctx: EmbeddingsContext,
  runId: string,
  limit = 5,
): Promise<SimilarFailure[]> {
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
