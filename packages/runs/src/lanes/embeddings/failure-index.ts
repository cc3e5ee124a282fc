/**
 * The in-memory copy of stored failure embeddings that `similarFailures` scans: one Float32Array a row
 * (pre-normalised, so cosine is a dot product), parallel arrays for the rest, and a position by run id.
 * Rows are only ever added.
 */
export interface FailureIndex {
  runIds: string[];
  models: string[];
  vectors: Float32Array[];
  reasonCodes: string[][];
  failureTexts: string[];
  position: Map<string, number>;
  /** The last stored rowid read. */
  upTo: number;
}

/** An empty index. */
export function createFailureIndex(): FailureIndex {
  return {
    runIds: [],
    models: [],
    vectors: [],
    reasonCodes: [],
    failureTexts: [],
    position: new Map(),
    upTo: 0,
  };
}

/** Adds one stored row. */
export function addToIndex(
  index: FailureIndex,
  row: { runId: string; model: string; vector: Float32Array; reasonCodes: string[]; failureText: string },
): void {
  if (index.position.has(row.runId)) return;
  index.position.set(row.runId, index.runIds.length);
  index.runIds.push(row.runId);
  index.models.push(row.model);
  index.vectors.push(row.vector);
  index.reasonCodes.push(row.reasonCodes);
  index.failureTexts.push(row.failureText);
}

function dotUnchecked(a: Float32Array, b: Float32Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/**
 * Scores every row of `model` but `exceptRunId` against `query` (a typed loop): row positions and their
 * similarities, -Infinity for rows that do not take part.
 */
export function scoreIndex(
  index: FailureIndex,
  query: Float32Array,
  model: string,
  exceptRunId: string,
): Float64Array {
  const n = index.runIds.length;
  const scores = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  for (let i = 0; i < n; i++) {
    const v = index.vectors[i] as Float32Array;
    if (index.models[i] !== model || v.length !== query.length || index.runIds[i] === exceptRunId) continue;
    scores[i] = dotUnchecked(query, v, v.length);
  }
  return scores;
}

function better(index: FailureIndex, scores: Float64Array, a: number, b: number): boolean {
  const sa = scores[a] as number;
  const sb = scores[b] as number;
  return sa > sb || (sa === sb && (index.runIds[a] as string) < (index.runIds[b] as string));
}

/**
 * The `k` best positions still in play (best first, ties by run id), taken out of play (-Infinity) so the
 * next call answers the following `k`. A partial selection: no sort of the whole index.
 */
export function takeBest(index: FailureIndex, scores: Float64Array, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (scores[i] === Number.NEGATIVE_INFINITY) continue;
    const last = best[best.length - 1];
    if (best.length >= k && last !== undefined && !better(index, scores, i, last)) continue;
    let at = best.length;
    while (at > 0 && better(index, scores, i, best[at - 1] as number)) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  for (const i of best) scores[i] = Number.NEGATIVE_INFINITY;
  return best;
}
