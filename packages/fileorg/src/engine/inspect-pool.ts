import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type {
  InspectedFile,
  LinkMove,
  LinkMoveOutcome,
  PathStat,
  PoolScope,
  ReaderAnswer,
  ReaderBatch,
  ReaderRequest,
} from "./readers/protocol.js";

export type { InspectedFile, LinkMoveOutcome, PathStat, PoolScope } from "./readers/protocol.js";

/**
 * The file threads' module (`readers/worker.ts`): the built `inspect-worker.js` beside the bundle in
 * `dist/`; from the sources (tests, `tsx`), the `.ts` entry through a shim that registers tsx in the
 * worker thread first.
 */
function readerModule(): { url: URL; tsEntry?: string } {
  if (!fileURLToPath(import.meta.url).endsWith(".ts"))
    return { url: new URL("./inspect-worker.js", import.meta.url) };
  // A test-only hook: the test runs bundle `readers/worker.ts` once (src/tests/reader-bundle-setup.ts), so a
  // thread starts in about 0.1 s of CPU instead of about 0.8 s of registering tsx and loading the sources.
  const bundled = process.env.VETTED_TEST_READER_BUNDLE;
  if (bundled !== undefined && bundled !== "") return { url: pathToFileURL(bundled) };
  return {
    url: new URL("./readers/ts-worker.mjs", import.meta.url),
    tsEntry: new URL("./readers/worker.ts", import.meta.url).href,
  };
}

interface Pending {
  resolve(results: unknown[]): void;
  reject(err: Error): void;
}

/**
 * A few file threads that stat, read, hash and move files with synchronous calls, off the main thread:
 * no thread-pool round trip per call, and the work overlaps the main thread's database writes.
 */
export interface InspectPool {
  /** Inspects `paths` (confined to `roots`) on one thread; results keep the input order. */
  inspect(paths: readonly string[], roots: readonly string[]): Promise<Array<InspectedFile | undefined>>;
  /** lstat of each path (confined to `roots`), in order. */
  stat(paths: readonly string[], roots: readonly string[]): Promise<PathStat[]>;
  /**
   * Moves each file by hard link + unlink (never clobbering, only the recorded file), one after the other,
   * in order; sources confined to `scope.source`, targets to `scope.target`.
   */
  linkMoves(moves: readonly LinkMove[], scope: PoolScope): Promise<LinkMoveOutcome[]>;
  /** How many reader threads run. */
  readonly threads: number;
  /** Stops the reader threads (pending calls are rejected). */
  close(): Promise<void>;
}

/** The number of reader threads for a given concurrency: one core stays for the main thread. */
export function readerThreadsFor(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, availableParallelism() - 1, 4));
}

/**
 * The number of file threads of an analyze: reading and hashing is its critical path (the main thread
 * mostly waits for it), so at least two threads even on two cores — which also keeps its share of the CPU
 * when the machine is busy with other work — and at most four.
 */
export function analyzeThreadsFor(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, Math.max(2, availableParallelism() - 1), 4));
}

/** What the reader threads read besides what they always read. */
export interface InspectOptions {
  /**
   * Whether a PDF's text is read as its excerpt (pdfjs over its first pages): only for an analyze whose
   * rules test `text`, since it costs far more than hashing.
   */
  pdfText?: boolean | undefined;
}

/**
 * A file thread's young generation: its garbage is short-lived (a file's facts, the messages it posts; the
 * bytes it reads live outside the heap), so a small one is enough, and V8's default (tens of MB a thread)
 * showed as about 35 MB of analyze's peak RSS with two threads.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 } as const;

/** Starts `threads` reader threads; calls are spread over them round-robin. */
export function createInspectPool(threads: number, options: InspectOptions = {}): InspectPool {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const { url, tsEntry } = readerModule();
  const workers = Array.from({ length: threads }, () => {
    // No inherited flags (a loader or `--input-type` of the parent's): the threads need none.
    const worker = new Worker(url, { workerData: { tsEntry }, execArgv: [], resourceLimits: THREAD_LIMITS });
    worker.unref();
    worker.on("message", (message: ReaderAnswer) => {
      const p = pending.get(message.id);
      pending.delete(message.id);
      p?.resolve(message.results);
    });
    worker.on("error", (err) => fail(err));
    worker.on("exit", (code) => {
      if (pending.size > 0) fail(new Error(`A file reader thread exited (code ${code}).`));
    });
    return worker;
  });
  const call = <R>(batch: ReaderBatch): Promise<R[]> => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    const worker = workers[id % workers.length];
    return new Promise<R[]>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (results: unknown[]) => void, reject });
      const request: ReaderRequest = { ...batch, id };
      worker?.postMessage(request);
    });
  };
  return {
    threads,
    inspect: (paths, roots) =>
      call<InspectedFile | undefined>({
        op: "inspect",
        items: paths,
        scope: { source: roots, target: [] },
        pdfText: options.pdfText === true,
      }),
    stat: (paths, roots) =>
      call<PathStat>({ op: "stat", items: paths, scope: { source: roots, target: [] } }),
    linkMoves: (moves, scope) => call<LinkMoveOutcome>({ op: "link", items: moves, scope }),
    async close() {
      failure ??= new Error("The file reader threads were stopped.");
      await Promise.all(workers.map((w) => w.terminate()));
      fail(failure);
    },
  };
}
