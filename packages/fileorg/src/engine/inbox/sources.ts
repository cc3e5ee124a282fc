import type { InboxResources, Watched, WatchSource } from "./resources.js";
import { sourceKey } from "./resources.js";
import { confirmRoot, createWatcher } from "./watchers.js";

type Res = InboxResources<{ job_id: string }>;

/** Every watch source, following the preference list's pages. */
async function allWatchSources(res: Res): Promise<WatchSource[]> {
  const all: WatchSource[] = [];
  let cursor: string | undefined;
  do {
    const page = await res.options.preferences.list("watch-sources", { cursor });
    all.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

/** Re-reads the watch sources: stops watchers of removed or changed sources, adds the new enabled ones. */
async function refresh(res: Res): Promise<void> {
  const items = await allWatchSources(res);
  const wanted = new Map(items.filter((s) => s.enabled).map((s) => [s.id, s]));
  for (const [id, w] of res.watched) {
    const next = wanted.get(id);
    if (next === undefined || sourceKey(next) !== w.key) {
      await w.watcher?.close();
      res.watched.delete(id);
    } else {
      w.source = next;
    }
  }
  for (const [id, source] of wanted) {
    if (res.watched.has(id)) continue;
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
    res.watched.set(id, w);
    // Checked before its watcher starts: a folder outside the roots is never watched.
    if ((await confirmRoot(res, w)) && res.state.started && w.watcher === undefined)
      createWatcher(res, w, res.options.usePolling ?? false);
  }
}

/** Re-reads the watch sources once at a time (concurrent callers share the running refresh). */
export function refreshOnce(res: Res): Promise<void> {
  res.state.refreshing ??= refresh(res).finally(() => {
    res.state.refreshing = undefined;
  });
  return res.state.refreshing;
}
