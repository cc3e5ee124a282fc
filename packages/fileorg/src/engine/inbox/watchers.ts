import type { Dirent, Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { watch } from "chokidar";
import { createIgnoreMatcher } from "../../domain/inbox-batch.js";
import { isInside } from "../../domain/posix-path.js";
import { FileorgError } from "../../errors.js";
import type { InboxResources, Watched } from "./resources.js";

type Res = InboxResources<{ job_id: string }>;

const MAX_WALK_FILES = 1_000_000;

/** Records a file's size and mtime, keeping when they were first seen unless they changed. */
export function observe(
  res: Res,
  w: Watched,
  path: string,
  st: Pick<Stats, "size" | "mtimeMs">,
  now = res.clock(),
): void {
  const mtime = Math.trunc(st.mtimeMs);
  const prev = w.files.get(path);
  if (prev !== undefined && prev.size === st.size && prev.mtime === mtime) return;
  w.files.set(path, { size: st.size, mtime, since: now });
}

function listen(res: Res, w: Watched, watcher: ReturnType<typeof watch>, polling: boolean): void {
  const onFile = (path: string, st?: Stats) => {
    if (st !== undefined) {
      if (st.isFile()) observe(res, w, path, st);
      return;
    }
    lstat(path).then(
      (s) => {
        if (s.isFile()) observe(res, w, path, s);
      },
      () => w.files.delete(path),
    );
  };
  watcher.on("add", onFile);
  watcher.on("change", onFile);
  watcher.on("unlink", (path) => w.files.delete(path));
  watcher.on("unlinkDir", (dir) => {
    for (const path of w.files.keys()) if (path !== dir && isInside(dir, path)) w.files.delete(path);
  });
  watcher.on("error", (err) => {
    const code = (err as NodeJS.ErrnoException).code;
    res.warn("inbox watcher error", { watch_source_id: w.source.id, code, polling });
    if (!polling && w.watcher === watcher) {
      // Events are unavailable (too many watches, unsupported filesystem…): poll instead.
      void watcher.close();
      res.warn("inbox watcher falls back to polling", { watch_source_id: w.source.id });
      createWatcher(res, w, true);
    }
  });
}

/** Starts watching a source's confirmed folder (events, or polling). */
export function createWatcher(res: Res, w: Watched, polling: boolean): void {
  const { source } = w;
  const root = w.root;
  if (root === undefined) return;
  const ignored = createIgnoreMatcher(source.ignore ?? []);
  const interval = res.options.pollIntervalMs ?? 1000;
  const watcher = (res.options.watch ?? watch)(root, {
    persistent: true,
    ignoreInitial: false,
    alwaysStat: true,
    followSymlinks: false,
    ...(source.recursive === false ? { depth: 0 } : {}),
    usePolling: polling,
    interval,
    binaryInterval: interval,
    ignored: (path: string) => ignored(relative(root, path).split(sep).join("/")),
  });
  w.watcher = watcher;
  w.polling = polling;
  w.ready = new Promise<void>((resolve) => {
    watcher.once("ready", () => resolve());
    watcher.once("error", () => resolve());
  });
  listen(res, w, watcher, polling);
}

/** Walks a source's folder once (when it is not watched), observing every file and forgetting gone ones. */
export async function walk(res: Res, w: Watched, root: string): Promise<void> {
  const { source } = w;
  const ignored = createIgnoreMatcher(source.ignore ?? []);
  const now = res.clock();
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
          observe(res, w, path, await lstat(path), now);
          seen.add(path);
        } catch {
          // Vanished between readdir and stat.
        }
      }
    }
  }
  for (const path of w.files.keys()) if (!seen.has(path)) w.files.delete(path);
}

/**
 * Resolves the source's folder and checks it lies inside the allowed roots. A source that now resolves
 * elsewhere (its folder, or a parent, swapped for a symlink) or is gone is refused: its watcher stops and
 * nothing it saw is kept. Answers whether the source may be scanned.
 */
export async function confirmRoot(res: Res, w: Watched): Promise<boolean> {
  let root: string;
  try {
    root = await res.guard.resolveDirectory(w.source.path);
  } catch (err) {
    if (!(err instanceof FileorgError)) throw err;
    if (w.refused === undefined) {
      res.warn("inbox skips a watch source", { watch_source_id: w.source.id, code: err.code });
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
