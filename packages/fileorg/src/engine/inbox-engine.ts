import type { Dirent, Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import { eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import {
  createIgnoreMatcher,
  DEFAULT_STABILITY_MS,
  type InboxBatch,
  type InboxFile,
  inboxBatchId,
} from "../domain/inbox-batch.js";
import { FileorgError } from "../errors.js";
import { ReviewError } from "../review-errors.js";
import { inboxSeen } from "../store/review-schema.js";
import { confinedFs } from "./confined-fs.js";
import { runTransaction } from "./db.js";
import { createPathGuard, defaultAllowedRoots, type PathGuard } from "./path-guard.js";
import type { PreferencesEngine, Stored } from "./preferences-engine.js";
import type { Clock } from "./review-ids.js";

type WatchSource = Stored<"watch-sources">;

/** Starts an analyze job over exactly these files of a watch source; answers the new job. */
export type AnalyzeFiles<J extends { job_id: string }> = (
  source: WatchSource,
  files: readonly InboxFile[],
  actor?: { actor: string; requestId?: string | undefined },
) => Promise<J>;

/** What the inbox engine is built from. */
export interface InboxEngineOptions<J extends { job_id: string }> {
  db: LibSQLDatabase;
  preferences: Pick<PreferencesEngine, "list" | "get">;
  clock?: Clock;
  /** Starts analyze jobs for `analyze`; without it `analyze` is unavailable. */
  analyzeFiles?: AnalyzeFiles<J>;
  /** Poll instead of filesystem events from the start (events fall back to polling on their own on error). */
  usePolling?: boolean;
  /** Polling interval in ms. Default 1000. */
  pollIntervalMs?: number;
  /** How often watch sources are re-read for changes while started, in ms. Default 5000. */
  refreshIntervalMs?: number;
  /** Creates the watchers (default: chokidar's `watch`); tests wrap it to simulate the OS refusing watches. */
  watch?: typeof watch;
  /**
   * The allowed roots a watched folder must lie in, checked when its watcher starts and before each scan (a
   * source that resolves outside is skipped, never listed). Default: the home and system temp directories.
   */
  guard?: PathGuard;
  /** Called when a watcher reports an error or falls back to polling. */
  onWarning?: (message: string, details: Record<string, unknown>) => void;
}

interface Observed {
  size: number;
  mtime: number;
  /** When this (size, mtime) was first observed. */
  since: number;
}

interface Watched {
  key: string;
  source: WatchSource;
  /** The watched folder's real path, checked inside the allowed roots (`undefined` while refused). */
  root: string | undefined;
  /** Why the source is skipped (it resolves outside the roots, or is gone). */
  refused: FileorgError | undefined;
  watcher: FSWatcher | undefined;
  polling: boolean;
  files: Map<string, Observed>;
  ready: Promise<void>;
}

const MAX_WALK_FILES = 1_000_000;

function sourceKey(s: WatchSource): string {
  return JSON.stringify([s.path, s.recursive ?? true, s.ignore ?? []]);
}

/**
 * The inbox: watches enabled watch sources (filesystem events, falling back to polling), keeps for each file
 * the moment its size and mtime last changed, and reports per source the files that held still for the
 * source's stability delay and were not yet analyzed, as a batch whose id is derived from exactly those
 * files. `start()` begins watching; `stop()` closes every watcher. `scan()` also works when not started (it
 * walks the folders then, and stability counts from that first look).
 */
export function createInboxEngine<J extends { job_id: string } = { job_id: string }>(
  options: InboxEngineOptions<J>,
) {
  const { db, preferences } = options;
  const clock = options.clock ?? Date.now;
  const warn = options.onWarning ?? (() => {});
  const guard = options.guard ?? createPathGuard(defaultAllowedRoots());
  const watched = new Map<string, Watched>();
  let started = false;
  let refreshTimer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;

  function observe(w: Watched, path: string, st: Pick<Stats, "size" | "mtimeMs">, now = clock()): void {
    const mtime = Math.trunc(st.mtimeMs);
    const prev = w.files.get(path);
    if (prev !== undefined && prev.size === st.size && prev.mtime === mtime) return;
    w.files.set(path, { size: st.size, mtime, since: now });
  }

  function createWatcher(w: Watched, polling: boolean): void {
    const { source } = w;
    const root = w.root;
    if (root === undefined) return;
    const ignored = createIgnoreMatcher(source.ignore ?? []);
    const watcher = (options.watch ?? watch)(root, {
      persistent: true,
      ignoreInitial: false,
      alwaysStat: true,
      followSymlinks: false,
      ...(source.recursive === false ? { depth: 0 } : {}),
      usePolling: polling,
      interval: options.pollIntervalMs ?? 1000,
      binaryInterval: options.pollIntervalMs ?? 1000,
      ignored: (path: string) => ignored(relative(root, path).split(sep).join("/")),
    });
    w.watcher = watcher;
    w.polling = polling;
    w.ready = new Promise<void>((resolve) => {
      watcher.once("ready", () => resolve());
      watcher.once("error", () => resolve());
    });
    const onFile = (path: string, st?: Stats) => {
      if (st !== undefined) {
        if (st.isFile()) observe(w, path, st);
        return;
      }
      lstat(path).then(
        (s) => {
          if (s.isFile()) observe(w, path, s);
        },
        () => w.files.delete(path),
      );
    };
    watcher.on("add", onFile);
    watcher.on("change", onFile);
    watcher.on("unlink", (path) => w.files.delete(path));
    watcher.on("unlinkDir", (dir) => {
      const prefix = `${dir}${sep}`;
      for (const path of w.files.keys()) if (path.startsWith(prefix)) w.files.delete(path);
    });
    watcher.on("error", (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      warn("inbox watcher error", { watch_source_id: source.id, code, polling });
      if (!polling && w.watcher === watcher) {
        // Events are unavailable (too many watches, unsupported filesystem…): poll instead.
        void watcher.close();
        warn("inbox watcher falls back to polling", { watch_source_id: source.id });
        createWatcher(w, true);
      }
    });
  }

  async function walk(w: Watched, root: string): Promise<void> {
    const { source } = w;
    const ignored = createIgnoreMatcher(source.ignore ?? []);
    const now = clock();
    const seen = new Set<string>();
    const stack: string[] = [root];
    while (stack.length > 0 && seen.size < MAX_WALK_FILES) {
      const dir = stack.pop() as string;
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (ignored(relative(root, path).split(sep).join("/"))) continue;
        if (entry.isDirectory()) {
          if (source.recursive !== false) stack.push(path);
        } else if (entry.isFile()) {
          try {
            observe(w, path, await lstat(path), now);
            seen.add(path);
          } catch {
            // Vanished between readdir and stat.
          }
        }
      }
    }
    for (const path of w.files.keys()) if (!seen.has(path)) w.files.delete(path);
  }

  async function refresh(): Promise<void> {
    const { items } = await preferences.list("watch-sources");
    const wanted = new Map(items.filter((s) => s.enabled).map((s) => [s.id, s]));
    for (const [id, w] of watched) {
      const next = wanted.get(id);
      if (next === undefined || sourceKey(next) !== w.key) {
        await w.watcher?.close();
        watched.delete(id);
      } else {
        w.source = next;
      }
    }
    for (const [id, source] of wanted) {
      if (watched.has(id)) continue;
      const w: Watched = {
        key: sourceKey(source),
        source,
        root: undefined,
        refused: undefined,
        watcher: undefined,
        polling: false,
        files: new Map(),
        ready: Promise.resolve(),
      };
      watched.set(id, w);
      // Checked before its watcher starts: a folder outside the roots is never watched.
      if ((await confirmRoot(w)) && started && w.watcher === undefined)
        createWatcher(w, options.usePolling ?? false);
    }
  }

  function refreshOnce(): Promise<void> {
    refreshing ??= refresh().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  /**
   * Resolves the source's folder and checks it lies inside the allowed roots. A source that now resolves
   * elsewhere (its folder, or a parent, swapped for a symlink) or is gone is refused: its watcher stops and
   * nothing it saw is kept. Answers whether the source may be scanned.
   */
  async function confirmRoot(w: Watched): Promise<boolean> {
    let root: string;
    try {
      root = await guard.resolveDirectory(w.source.path);
    } catch (err) {
      if (!(err instanceof FileorgError)) throw err;
      if (w.refused === undefined) {
        warn("inbox skips a watch source", { watch_source_id: w.source.id, code: err.code });
      }
      w.refused = err;
      await w.watcher?.close();
      w.watcher = undefined;
      w.root = undefined;
      w.files.clear();
      return false;
    }
    w.refused = undefined;
    if (w.root !== root) {
      await w.watcher?.close();
      w.watcher = undefined;
      w.files.clear();
      w.root = root;
    }
    return true;
  }

  async function currentBatch(w: Watched): Promise<InboxBatch> {
    const root = (await confirmRoot(w)) ? w.root : undefined;
    if (root === undefined) {
      return {
        watch_source_id: w.source.id,
        batch_id: null,
        files: [],
        ...(w.refused ? { error: { code: w.refused.code, message: w.refused.message } } : {}),
      };
    }
    if (w.watcher === undefined) {
      await walk(w, root);
      if (started) createWatcher(w, options.usePolling ?? false);
    } else {
      await w.ready;
    }
    const stabilityMs = w.source.stability_ms ?? DEFAULT_STABILITY_MS;
    const seenRows = await db
      .select({ path: inboxSeen.path, size: inboxSeen.size, mtime: inboxSeen.mtime })
      .from(inboxSeen)
      .where(eq(inboxSeen.watchSourceId, w.source.id));
    const seen = new Map(seenRows.map((r) => [r.path, r]));
    const files: InboxFile[] = [];
    const candidates = [...w.files.entries()].filter(([path, o]) => {
      const s = seen.get(path);
      return s === undefined || s.size !== o.size || s.mtime !== o.mtime;
    });
    for (const [path] of candidates) {
      // Look again now (an event may not have arrived yet for a file still being written), through the
      // confined layer: a file whose real parent left the watched folder (a symlink swapped in) is dropped.
      const seenNow = confinedFs.lstatIn([root], path);
      if (seenNow.code === undefined && seenNow.facts.isFile) {
        observe(w, path, { size: seenNow.facts.size, mtimeMs: seenNow.facts.mtime });
      } else {
        w.files.delete(path);
      }
    }
    const now = clock();
    for (const [path] of candidates) {
      const o = w.files.get(path);
      if (o === undefined || now - o.since < stabilityMs) continue;
      const s = seen.get(path);
      if (s !== undefined && s.size === o.size && s.mtime === o.mtime) continue;
      files.push({ path, size: o.size, mtime: o.mtime });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { watch_source_id: w.source.id, batch_id: inboxBatchId(files), files };
  }

  return {
    /** Starts watching every enabled source, and re-reads the sources periodically. */
    async start(): Promise<void> {
      if (started) return;
      started = true;
      await refreshOnce();
      for (const w of watched.values())
        if (w.watcher === undefined && (await confirmRoot(w))) createWatcher(w, options.usePolling ?? false);
      refreshTimer = setInterval(() => {
        refreshOnce().catch((err: unknown) => warn("inbox refresh failed", { error: String(err) }));
      }, options.refreshIntervalMs ?? 5000);
      refreshTimer.unref();
    },

    /** Closes every watcher. */
    async stop(): Promise<void> {
      started = false;
      if (refreshTimer !== undefined) clearInterval(refreshTimer);
      refreshTimer = undefined;
      await Promise.all([...watched.values()].map((w) => w.watcher?.close()));
      watched.clear();
    },

    /** For each enabled source, its new stable files since its last analyze, as a batch. */
    async scan(): Promise<{ items: InboxBatch[] }> {
      await refreshOnce();
      const items: InboxBatch[] = [];
      for (const w of watched.values()) items.push(await currentBatch(w));
      items.sort((a, b) => a.watch_source_id.localeCompare(b.watch_source_id));
      return { items };
    },

    /**
     * Starts an analyze job over exactly the source's current batch. Throws WATCH_SOURCE_NOT_FOUND,
     * INBOX_EMPTY when nothing is new, BATCH_CHANGED when `batchId` is given and the files changed since.
     * The batch's files are then remembered as analyzed, so the next scan reports only newer ones.
     */
    async analyze(
      watchSourceId: string,
      batchId?: string,
      actor?: { actor: string; requestId?: string | undefined },
    ): Promise<J> {
      await refreshOnce();
      const w = watched.get(watchSourceId);
      if (w === undefined) {
        await preferences.get("watch-sources", watchSourceId).catch(() => {
          throw new ReviewError(
            "WATCH_SOURCE_NOT_FOUND",
            `No enabled watch source with id ${JSON.stringify(watchSourceId)}.`,
          );
        });
        throw new ReviewError("WATCH_SOURCE_NOT_FOUND", `The watch source ${watchSourceId} is disabled.`);
      }
      const batch = await currentBatch(w);
      if (w.refused !== undefined) throw w.refused;
      if (batch.batch_id === null) {
        throw new ReviewError(
          "INBOX_EMPTY",
          `Nothing new and stable in ${w.source.path} since its last analyze.`,
          {
            watch_source_id: watchSourceId,
          },
        );
      }
      if (batchId !== undefined && batchId !== batch.batch_id) {
        throw new ReviewError(
          "BATCH_CHANGED",
          `The files of ${w.source.path} changed since batch ${batchId} was scanned; scan again.`,
          { watch_source_id: watchSourceId, batch_id: batchId, current_batch_id: batch.batch_id },
        );
      }
      if (options.analyzeFiles === undefined) throw new Error("inbox: no analyzeFiles configured");
      const job = await options.analyzeFiles(w.source, batch.files, actor);
      const now = clock();
      const currentId = batch.batch_id;
      await runTransaction(db, async (tx) => {
        for (const f of batch.files) {
          await tx
            .insert(inboxSeen)
            .values({
              watchSourceId,
              path: f.path,
              size: f.size,
              mtime: f.mtime,
              batchId: currentId,
              jobId: job.job_id,
              analyzedAt: now,
            })
            .onConflictDoUpdate({
              target: [inboxSeen.watchSourceId, inboxSeen.path],
              set: { size: f.size, mtime: f.mtime, batchId: currentId, jobId: job.job_id, analyzedAt: now },
            });
        }
      });
      return job;
    },

    /** Whether a source's watcher currently polls (after a fallback, or when configured). */
    isPolling(watchSourceId: string): boolean | undefined {
      return watched.get(watchSourceId)?.polling;
    },

    /**
     * Forgets the files handed to an analyze job that did not succeed (failed or cancelled), so the next
     * scan reports them again.
     */
    async forgetJob(jobId: string): Promise<void> {
      await runTransaction(db, (tx) => tx.delete(inboxSeen).where(eq(inboxSeen.jobId, jobId)));
    },

    /** Forgets what was analyzed for a source (its next scan reports every stable file again). */
    async forget(watchSourceId: string): Promise<void> {
      await runTransaction(db, (tx) =>
        tx.delete(inboxSeen).where(eq(inboxSeen.watchSourceId, watchSourceId)),
      );
    },
  };
}

/** The inbox engine's verbs. */
export type InboxEngine<J extends { job_id: string } = { job_id: string }> = ReturnType<
  typeof createInboxEngine<J>
>;
