/**
 * The local embeddings model's worker thread: loads the word vectors once, then answers each
 * `{ id, texts }` with `{ id, vectors }` (one Float32Array buffer, transferred) or `{ id, error }`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { embedWithModel, LOCAL_DIMENSION, type LocalModel, loadLocalModel } from "./local-model.js";

/** A batch the main thread sends. */
export interface WorkerRequest {
  id: number;
  texts: string[];
}

/** The answer to one batch: the vectors back to back (`texts.length × 100` floats), or why not. */
export type WorkerAnswer = { id: number; vectors: Float32Array } | { id: number; error: string };

const port = parentPort;
if (port !== null) {
  const { cacheDir } = workerData as { cacheDir: string | undefined };
  let model: Promise<LocalModel> | undefined;
  port.on("message", async ({ id, texts }: WorkerRequest) => {
    try {
      model ??= loadLocalModel(cacheDir);
      const vectors = embedWithModel(await model, texts);
      const packed = new Float32Array(vectors.length * LOCAL_DIMENSION);
      for (const [i, v] of vectors.entries()) packed.set(v, i * LOCAL_DIMENSION);
      const answer: WorkerAnswer = { id, vectors: packed };
      port.postMessage(answer, [packed.buffer]);
    } catch (err) {
      model = undefined;
      const answer: WorkerAnswer = { id, error: err instanceof Error ? err.message : String(err) };
      port.postMessage(answer);
    }
  });
}
