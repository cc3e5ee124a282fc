import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { RunsResources } from "../../core/resources.js";
import type { RunRow } from "../../core/views.js";
import { runEmbeddings, runs } from "../../store/schema.js";
import type { Embedder } from "./embedder.js";
import type { FailureIndex } from "./failure-index.js";
import { type FailureVectors, mirrorStored, type VectorStore, vectorIndexReady } from "./failure-vectors.js";

/** Wait reasons that block a run (it cannot go on without a person), counted as failures for search. */
export const BLOCKING_REASONS = ["provider_protected_payment_step", "step_outcome_unknown"] as const;

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
export const failedOrBlocked = or(
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

export function fromBlob(b: ArrayBuffer | Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b instanceof Uint8Array ? b : new Uint8Array(b));
  return new Float32Array(copy.buffer);
}

/** What the failure-embedding functions share: the engine's resources, the embedder, and this process's state. */
export interface EmbeddingsContext {
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

/** Embeds `rows`' failure texts and stores them (and copies them into the vector index when it is ready). */
export async function storeFailures(
  ctx: EmbeddingsContext,
  rows: readonly RunRow[],
  via: VectorStore,
): Promise<number> {
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
