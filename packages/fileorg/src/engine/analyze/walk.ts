import type { Dirent } from "node:fs";
import { opendir } from "node:fs/promises";
import { join } from "node:path";
import type { InspectedFile, InspectPool } from "../inspect-pool.js";

/** Folders of other tools, skipped unless hidden entries are included. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  "node_modules",
  "__pycache__",
  "$RECYCLE.BIN",
  "System Volume Information",
  "lost+found",
]);

/** Options of the walk. */
export interface WalkOptions {
  recursive: boolean;
  includeHidden: boolean;
  /** The never-touch set: a protected entry is listed (not yielded, not descended into). */
  isProtected?: ((path: string) => boolean) | undefined;
  /** Folders kept whole: everything inside them is yielded, hidden files and `node_modules` included. */
  unitRoots?: ReadonlySet<string> | undefined;
}

/**
 * A symlink, special file (FIFO, socket, device) or protected path (the server's own data) the walk passed
 * over: listed as a blocked row.
 */
export interface SpecialEntry {
  path: string;
  kind: "symlink" | "special" | "protected";
}

/** At most this many symlinks and special files are listed per analyze; the rest are only counted. */
export const MAX_SPECIAL_ENTRIES = 10_000;

/** Counts of what the walk passed over. */
export interface WalkStats {
  directories: number;
  skippedEntries: number;
  /** Symlinks and special files found (listed as skipped rows with a reason); absent: only counted. */
  specialEntries?: SpecialEntry[];
}

function isSkipped(name: string, isDir: boolean, options: WalkOptions, inUnit = false): boolean {
  const all = options.includeHidden || inUnit;
  if (!all && name.startsWith(".")) return true;
  if (isDir && !all && SKIPPED_DIRECTORIES.has(name)) return true;
  // temp files of an interrupted apply are never part of a plan
  return !isDir && name.includes(".vetted-tmp-");
}

/** Lists a protected entry as a special one (unless hidden entries are skipped anyway); never descends. */
export function listProtected(path: string, skipped: boolean, stats: WalkStats): void {
  if (!skipped && stats.specialEntries !== undefined && stats.specialEntries.length < MAX_SPECIAL_ENTRIES) {
    stats.specialEntries.push({ path, kind: "protected" });
  } else {
    stats.skippedEntries++;
  }
}

/** Streams the regular files under `root` depth-first; only pending directory paths are held in memory. */
export async function* walkFiles(
  root: string,
  options: WalkOptions,
  stats: WalkStats,
): AsyncGenerator<string> {
  const stack: Array<[string, boolean]> = [[root, false]];
  while (stack.length > 0) {
    const top = stack.pop();
    if (top === undefined) break;
    const [dir, inUnit] = top;
    stats.directories++;
    let handle: AsyncIterable<Dirent>;
    try {
      handle = await opendir(dir, { bufferSize: 128 });
    } catch {
      stats.skippedEntries++;
      continue;
    }
    const subdirs: Array<[string, boolean]> = [];
    for await (const entry of handle) {
      const path = join(dir, entry.name);
      if (options.isProtected?.(path) === true) {
        listProtected(path, isSkipped(entry.name, entry.isDirectory(), options, inUnit), stats);
      } else if (entry.isDirectory()) {
        const unit = inUnit || options.unitRoots?.has(path) === true;
        if (isSkipped(entry.name, true, options, inUnit)) stats.skippedEntries++;
        else if (options.recursive) subdirs.push([path, unit]);
      } else if (entry.isFile()) {
        if (isSkipped(entry.name, false, options, inUnit)) stats.skippedEntries++;
        else yield path;
      } else if (
        stats.specialEntries !== undefined &&
        stats.specialEntries.length < MAX_SPECIAL_ENTRIES &&
        !isSkipped(entry.name, false, options, inUnit)
      ) {
        // symlinks, sockets, devices: never followed, never moved, but listed with a reason
        stats.specialEntries.push({ path, kind: entry.isSymbolicLink() ? "symlink" : "special" });
      } else {
        stats.skippedEntries++;
      }
    }
    stack.push(...subdirs.reverse());
  }
}

/**
 * Maps `source` through `fn` with at most `limit` calls in flight; yields in completion order. Each call
 * reports its end into a queue as it settles (no `Promise.race` over every call in flight per item, which
 * allocated a reaction on each of them for every file).
 */
export async function* mapBounded<T, R>(
  source: AsyncIterable<T>,
  limit: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const iterator = source[Symbol.asyncIterator]();
  const ended: Array<PromiseSettledResult<R>> = [];
  let wake: (() => void) | undefined;
  const report = (result: PromiseSettledResult<R>) => {
    ended.push(result);
    wake?.();
  };
  let running = 0;
  let exhausted = false;
  for (;;) {
    while (!exhausted && running < limit) {
      const next = await iterator.next();
      if (next.done === true) {
        exhausted = true;
        break;
      }
      running++;
      fn(next.value).then(
        (value) => report({ status: "fulfilled", value }),
        (reason: unknown) => report({ status: "rejected", reason }),
      );
    }
    if (running === 0) return;
    if (ended.length === 0) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    const first = ended.shift();
    if (first === undefined) continue;
    running--;
    if (first.status === "rejected") throw first.reason;
    yield first.value;
  }
}

// Chunks of 128 paths, up to 16 chunks ahead per thread: the threads go on reading while the main thread
// is held by a batch insert (the local driver is synchronous), and a message carries more files.
const READ_CHUNK = 128;

/**
 * Streams what the pool's reader threads find about `paths`, sent in chunks with a bounded number of chunks
 * in flight (bounded memory), in the order the paths came. A file whose real parent lies outside `roots`
 * is neither read nor yielded.
 */
export async function* inspectAll(
  paths: AsyncIterable<string>,
  pool: InspectPool,
  roots: readonly string[],
): AsyncGenerator<InspectedFile> {
  const iterator = paths[Symbol.asyncIterator]();
  const queue: Array<Promise<Array<InspectedFile | undefined>>> = [];
  const maxInFlight = pool.threads * 16;
  let exhausted = false;
  for (;;) {
    while (!exhausted && queue.length < maxInFlight) {
      const part: string[] = [];
      while (part.length < READ_CHUNK) {
        const next = await iterator.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        part.push(next.value);
      }
      if (part.length === 0) break;
      const answer = pool.inspect(part, roots);
      answer.catch(() => undefined); // awaited below; never an unhandled rejection if the walk stops early
      queue.push(answer);
    }
    const first = queue.shift();
    if (first === undefined) return;
    for (const file of await first) if (file !== undefined) yield file;
  }
}
