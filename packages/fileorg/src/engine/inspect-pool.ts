import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** What a reader thread tells about one file; `undefined` when it vanished or is not a regular file. */
export interface InspectedFile {
  path: string;
  size: number;
  mtime: number;
  dev: number;
  ino: number;
  sha256: string | null;
  /** The first bytes, only when magic-byte sniffing can tell more than the extension. */
  head: Uint8Array | null;
  /** The errno code when the file could not be read (a blocked row). */
  errorCode: string | null;
}

/**
 * The reader threads' code. Plain JavaScript over Node built-ins only, evaluated as the worker's script,
 * so it runs the same from sources (tests, tsx) and from the bundle. Each file is read through one
 * descriptor with synchronous calls (open, fstat, read, close: no thread-pool round trip per call) and its
 * content is hashed as it is read: the reading and hashing overlap with the main thread's classification
 * and database writes instead of competing with them for the event loop.
 */
const READER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { createHash } = require("node:crypto");
// Never follow a symlink swapped in since the walk, never block on a FIFO.
const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
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

function factsOf(path, info) {
  return { path, size: info.size, mtime: Math.trunc(info.mtimeMs), dev: info.dev, ino: info.ino };
}

function inspect(path) {
  let fd;
  try {
    fd = fs.openSync(path, FLAGS);
  } catch (openError) {
    let info;
    try {
      info = fs.lstatSync(path);
    } catch {
      return undefined; // vanished since the walk saw it
    }
    if (!info.isFile()) return undefined;
    return { ...factsOf(path, info), sha256: null, head: null, errorCode: openError.code || "EIO" };
  }
  try {
    const info = fs.fstatSync(fd);
    if (!info.isFile()) return undefined;
    const facts = factsOf(path, info);
    try {
      const hash = createHash("sha256");
      let head = null;
      let position = 0;
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, buffer.length, position);
        if (n === 0) break;
        if (position === 0) {
          const first = buffer.subarray(0, Math.min(n, HEAD));
          head = isPlainText(first) ? null : Uint8Array.prototype.slice.call(first);
        }
        hash.update(buffer.subarray(0, n));
        position += n;
        // A short read ending exactly at the size fstat gave is the end: no extra read to see EOF.
        if (position === info.size && n < buffer.length) break;
      }
      return { ...facts, sha256: hash.digest("hex"), head, errorCode: null };
    } catch (readError) {
      return { ...facts, sha256: null, head: null, errorCode: readError.code || "EIO" };
    }
  } finally {
    try {
      fs.closeSync(fd);
    } catch {}
  }
}

function statOf(path) {
  try {
    const info = fs.lstatSync(path);
    return { isFile: info.isFile(), size: info.size, mtime: Math.trunc(info.mtimeMs) };
  } catch {
    return null;
  }
}

// A hard link then an unlink: never replaces what is at the target (link fails with EEXIST).
function linkMove({ from, to }) {
  try {
    fs.linkSync(from, to);
    fs.unlinkSync(from);
    return { outcome: "moved" };
  } catch (err) {
    const code = err.code || "EIO";
    if (code === "EEXIST") return { outcome: "target_exists" };
    if (code === "ENOENT" && statOf(from) === null) return { outcome: "source_missing" };
    if (["EXDEV", "EPERM", "ENOTSUP", "EMLINK", "ENOSYS"].includes(code)) return { outcome: "copy", code };
    return { outcome: "error", code };
  }
}

const OPS = { inspect, stat: statOf, link: linkMove };
parentPort.on("message", ({ id, op, items }) => {
  parentPort.postMessage({ id, results: items.map(OPS[op]) });
});
`;

/** What a file thread's lstat tells (`null` when nothing is there). */
export interface PathStat {
  isFile: boolean;
  size: number;
  mtime: number;
}

/**
 * How a link + unlink move ended: moved; the target was occupied (nothing replaced); the source was gone;
 * `copy` when links are refused there (another device…): the caller copies instead; another error.
 */
export type LinkMoveOutcome =
  | { outcome: "moved" | "target_exists" | "source_missing" }
  | { outcome: "copy" | "error"; code: string };

interface Pending {
  resolve(results: unknown[]): void;
  reject(err: Error): void;
}

/**
 * A few file threads that stat, read, hash and move files with synchronous calls, off the main thread:
 * no thread-pool round trip per call, and the work overlaps the main thread's database writes.
 */
export interface InspectPool {
  /** Inspects `paths` on one thread; results keep the input order. */
  inspect(paths: readonly string[]): Promise<Array<InspectedFile | undefined>>;
  /** lstat of each path, in order. */
  stat(paths: readonly string[]): Promise<Array<PathStat | null>>;
  /** Moves each file by hard link + unlink (never clobbering), one after the other, in order. */
  linkMoves(moves: ReadonlyArray<{ from: string; to: string }>): Promise<LinkMoveOutcome[]>;
  /** How many reader threads run. */
  readonly threads: number;
  /** Stops the reader threads (pending calls are rejected). */
  close(): Promise<void>;
}

/** The number of reader threads for a given concurrency: one core stays for the main thread. */
export function readerThreadsFor(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, availableParallelism() - 1, 4));
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
    const worker = new Worker(READER_SOURCE, { eval: true });
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
  const call = <R>(op: "inspect" | "stat" | "link", items: readonly unknown[]): Promise<R[]> => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    const worker = workers[id % workers.length];
    return new Promise<R[]>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (results: unknown[]) => void, reject });
      worker?.postMessage({ id, op, items });
    });
  };
  return {
    threads,
    inspect: (paths) => call<InspectedFile | undefined>("inspect", paths),
    stat: (paths) => call<PathStat | null>("stat", paths),
    linkMoves: (moves) => call<LinkMoveOutcome>("link", moves),
    async close() {
      failure ??= new Error("The file reader threads were stopped.");
      await Promise.all(workers.map((w) => w.terminate()));
      fail(failure);
    },
  };
}
