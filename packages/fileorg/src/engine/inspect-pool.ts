import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { DateHint } from "../domain/content-date.js";
import type { ConfinedMoveOutcome, FileFacts, SourceIdentity } from "./confined-fs.js";
import { CONTENT_DATES_SOURCE } from "./content-dates-source.js";
import { THREAD_MODULE_LOADER, threadModule } from "./thread-modules.js";

/** What a reader thread tells about one file; `undefined` when it vanished or is not a regular file. */
export interface InspectedFile {
  path: string;
  size: number;
  mtime: number;
  dev: number;
  ino: number;
  /** Status change time, ms since the epoch (truncated). */
  ctime: number;
  sha256: string | null;
  /** The first bytes, only when magic-byte sniffing can tell more than the extension. */
  head: Uint8Array | null;
  /** The errno code when the file could not be read (a blocked row). */
  errorCode: string | null;
  /** Whether the first bytes are plain text (no magic bytes to sniff). */
  plainText: boolean;
  /** Date texts the content carries (EXIF, PDF, Office core properties), best first; left out when none. */
  dateHints?: DateHint[] | undefined;
}

/**
 * The reader threads' code. Plain JavaScript over Node built-ins only (and the confined file-system layer,
 * loaded by URL, so every read and move checks its real parent right before it acts, on the thread that
 * acts), evaluated as the worker's script,
 * so it runs the same from sources (tests, tsx) and from the bundle. Each file is read through one
 * descriptor with synchronous calls (open, fstat, read, close: no thread-pool round trip per call) and its
 * content is hashed as it is read: the reading and hashing overlap with the main thread's classification
 * and database writes instead of competing with them for the event loop.
 */
const READER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const path = require("node:path");
const { createHash } = require("node:crypto");
// The confined layer: the same module the main thread imports (engine/confined-fs.ts), loaded by URL.
${THREAD_MODULE_LOADER}
let confinedFs;
const confinedFsLoaded = loadThreadModule(workerData.confinedFs).then((loaded) => {
  confinedFs = loaded.confinedFs;
});
const EXIFR_PATH = workerData.exifrPath;
${CONTENT_DATES_SOURCE}
const HEAD = 4100;
const TEXT_MAGIC = ["%PDF", "{\\\\rtf", "%!", "<?xml", "<svg", "#!"];
const buffer = Buffer.allocUnsafe(1 << 20);

// Plain text with no known text-based magic: sniffing cannot say more than the extension.
function isPlainText(head) {
  for (let i = 0; i < head.length; i++) {
    const b = head[i];
    if (b < 0x09 || (b > 0x0d && b < 0x20 && b !== 0x1b)) return false;
  }
  const start = head.subarray(0, 8).toString("latin1").trimStart();
  return !TEXT_MAGIC.some((m) => start.startsWith(m));
}

function factsOf(file, info) {
  return { path: file, size: info.size, mtime: info.mtime, dev: info.dev, ino: info.ino, ctime: info.ctime };
}

// Reads one file through the confined layer: its real parent must lie inside the roots, the file is opened
// with O_NOFOLLOW (never a symlink swapped in since the walk) and O_NONBLOCK (never blocking on a FIFO).
function inspect(file, scope, parents, dirs) {
  const opened = confinedFs.openReadIn(scope.source, file, dirs);
  if (opened.code !== undefined) {
    if (opened.code === "OUTSIDE_ROOT" || opened.code === "NOT_A_FILE" || opened.code === "ENOENT") return undefined;
    const seen = confinedFs.lstatIn(scope.source, file);
    if (seen.code !== undefined || !seen.facts.isFile) return undefined;
    return { ...factsOf(file, seen.facts), sha256: null, head: null, errorCode: opened.code, plainText: false };
  }
  const fd = opened.fd;
  try {
    const info = opened.facts;
    const facts = factsOf(file, info);
    try {
      const hash = createHash("sha256");
      let head = null;
      let plainText = false;
      let dateHead = null;
      let position = 0;
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, buffer.length, position);
        if (n === 0) break;
        if (position === 0) {
          const first = buffer.subarray(0, Math.min(n, HEAD));
          plainText = isPlainText(first);
          head = plainText ? null : Uint8Array.prototype.slice.call(first);
          if (!plainText && dateKindOf(first) !== null) dateHead = Buffer.from(buffer.subarray(0, Math.min(n, DATE_HEAD)));
        }
        hash.update(buffer.subarray(0, n));
        position += n;
        // A short read ending exactly at the size fstat gave is the end: no extra read to see EOF.
        if (position === info.size && n < buffer.length) break;
      }
      const sha256 = hash.digest("hex");
      const hints = dateHead === null ? [] : dateHintsOf(fd, dateHead, info.size);
      // No hints, no field: one object fewer to copy back per file.
      const done = (dateHints) =>
        dateHints.length === 0
          ? { ...facts, sha256, head, errorCode: null, plainText }
          : { ...facts, sha256, head, errorCode: null, plainText, dateHints };
      return Array.isArray(hints) ? done(hints) : hints.then(done);
    } catch (readError) {
      return { ...facts, sha256: null, head: null, errorCode: readError.code || "EIO", plainText: false };
    }
  } finally {
    try {
      fs.closeSync(fd);
    } catch {}
  }
}

// A plan's pre-check (the move re-checks right before it acts): real parents are resolved once per batch.
function statOf(file, scope, parents) {
  const seen = confinedFs.lstatIn(scope.source, file, parents);
  if (seen.code === "OUTSIDE_ROOT") return { outside: true };
  return seen.code === undefined ? seen.facts : null;
}

function linkMove(move, scope, parents, dirs) {
  // Never the batch's parents cache: each move resolves its real parents right before it acts (through
  // the batch's open directories: one readlink of /proc/self/fd each, see realDir).
  return confinedFs.linkMoveIn(scope.source, scope.target, move, dirs);
}

const OPS = { inspect, stat: statOf, link: linkMove };
function onMessage({ id, op, items, scope }) {
  const parents = new Map();
  const dirs = new Map();
  let results;
  try {
    results = items.map((item) => OPS[op](item, scope, parents, dirs));
  } finally {
    confinedFs.closeDirs(dirs);
  }
  // A photo's EXIF is parsed asynchronously (from a copy of its first bytes, the file already closed).
  if (results.some((r) => r instanceof Promise)) {
    Promise.all(results).then((settled) => parentPort.postMessage({ id, results: settled }));
  } else {
    parentPort.postMessage({ id, results });
  }
}
parentPort.on("message", (message) => confinedFsLoaded.then(() => onMessage(message)));
`;

/** What a file thread's lstat tells: the facts, `{ outside: true }` when the real parent is outside the roots, `null` when nothing is there. */
export type PathStat = FileFacts | { outside: true } | null;

/**
 * How a link + unlink move ended: moved; the target was occupied (nothing replaced); the source was gone;
 * outside the roots or not the recorded file (nothing touched); `copy` when links are refused there
 * (another device…): the caller copies instead; another error.
 */
export type LinkMoveOutcome = ConfinedMoveOutcome;

/** The real roots a call is confined to: sources (reads, stats, the side a move leaves) and targets. */
export interface PoolScope {
  source: readonly string[];
  target: readonly string[];
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
  linkMoves(
    moves: ReadonlyArray<{ from: string; to: string; identity: SourceIdentity | null }>,
    scope: PoolScope,
  ): Promise<LinkMoveOutcome[]>;
  /** How many reader threads run. */
  readonly threads: number;
  /** Stops the reader threads (pending calls are rejected). */
  close(): Promise<void>;
}

/** Where the reader threads load `exifr` from (on their first photo). */
const EXIFR_PATH = createRequire(import.meta.url).resolve("exifr");

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

/** Starts `threads` reader threads; calls are spread over them round-robin. */
export function createInspectPool(threads: number): InspectPool {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const workers = Array.from({ length: threads }, () => {
    // No inherited flags (a loader of the parent's): the thread registers tsx itself when it needs it.
    const worker = new Worker(READER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { exifrPath: EXIFR_PATH, confinedFs: threadModule("confined-fs") },
    });
    worker.unref();
    worker.on("message", (message: { id: number; results: unknown[] }) => {
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
  const call = <R>(
    op: "inspect" | "stat" | "link",
    items: readonly unknown[],
    scope: PoolScope,
  ): Promise<R[]> => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    const worker = workers[id % workers.length];
    return new Promise<R[]>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (results: unknown[]) => void, reject });
      worker?.postMessage({ id, op, items, scope });
    });
  };
  return {
    threads,
    inspect: (paths, roots) =>
      call<InspectedFile | undefined>("inspect", paths, { source: roots, target: [] }),
    stat: (paths, roots) => call<PathStat>("stat", paths, { source: roots, target: [] }),
    linkMoves: (moves, scope) => call<LinkMoveOutcome>("link", moves, scope),
    async close() {
      failure ??= new Error("The file reader threads were stopped.");
      await Promise.all(workers.map((w) => w.terminate()));
      fail(failure);
    },
  };
}
