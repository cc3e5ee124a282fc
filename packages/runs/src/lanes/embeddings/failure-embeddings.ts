import { and, eq, isNull } from "drizzle-orm";
import type { RunsResources } from "../../core/resources.js";
import { runEmbeddings, runs } from "../../store/schema.js";
import type { Embedder } from "./embedder.js";
import {
  type EmbeddingsContext,
  failedOrBlocked,
  type SimilarFailure,
  storeFailures,
} from "./failure-context.js";
import { createFailureIndex } from "./failure-index.js";
import { similarFailures } from "./failure-search.js";
import { catchUpMirror, createFailureVectors, vectorIndexReady } from "./failure-vectors.js";

const BATCH = 32;
/** Stored rows a worker round copies into the index table. */
const ROUND_CATCH_UP = 256;

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
    return await storeFailures(ctx, pending, ctx.inBackground);
  } catch (err) {
    for (const row of pending) ctx.refused.add(row.id);
    throw err;
  }
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
