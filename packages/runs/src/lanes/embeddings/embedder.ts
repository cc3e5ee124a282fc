/** The embeddings port: a model that turns texts into unit-length vectors of one dimension. */
export interface Embedder {
  /** The name callers pick it by (`model` in a batch request). */
  readonly model: string;
  readonly dimension: number;
  /** One L2-normalised vector per text, in order. @throws UPSTREAM_FAILED, UPSTREAM_TIMEOUT (remote models) */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Scales `v` to unit length in place (a zero vector stays zero); returns it. */
export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) return v;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) * scale;
  return v;
}

/** The dot product of two vectors of one length (their cosine when both are unit length). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}
