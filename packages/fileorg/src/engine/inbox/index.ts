import { encodeCursor, runTransaction } from "@vetted/store";
import { eq } from "drizzle-orm";
import type { InboxBatch } from "../../domain/inbox-batch.js";
import { ReviewError } from "../../review-errors.js";
import { inboxSeen } from "../../store/review-schema.js";
import { cursorKey, pageLimit } from "../query-kit.js";
import { autopilotOnce } from "./autopilot.js";
import { assertBatch, currentBatch, rememberBatch } from "./batches.js";
import {
  createInboxResources,
  type InboxEngineOptions,
  type InboxResources,
  type Watched,
} from "./resources.js";
import { refreshOnce } from "./sources.js";
import { confirmRoot, createWatcher } from "./watchers.js";

export { AUTOPILOT_ACTOR, type AutoApplyEngine, autoApplySafeRows } from "./autopilot.js";
export type { AnalyzeFiles, InboxEngineOptions } from "./resources.js";

/** The list name an inbox-scan cursor is bound to (a cursor of another list is CURSOR_INVALID). */
const INBOX_BATCHES_LIST = "fileorg.inbox-batches";

/** Paging of a scan: batches are answered per watch source, by id. */
export interface InboxScanQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
}

async function start(res: InboxResources<{ job_id: string }>, autopilot: () => Promise<void>): Promise<void> {
  if (res.state.started) return;
  res.state.started = true;
  await refreshOnce(res);
  for (const w of res.watched.values())
    if (w.watcher === undefined && (await confirmRoot(res, w)))
      createWatcher(res, w, res.options.usePolling ?? false);
  // Each tick re-reads the sources, then lets the autopilot take the stable batches of auto_safe sources.
  const timer = setInterval(() => {
    refreshOnce(res)
      .then(() => (res.state.started ? autopilot() : undefined))
      .catch((err: unknown) => res.warn("inbox refresh failed", { error: String(err) }));
  }, res.options.refreshIntervalMs ?? 5000);
  timer.unref();
  res.state.refreshTimer = timer;
}

async function stop(res: InboxResources<{ job_id: string }>): Promise<void> {
  res.state.started = false;
  if (res.state.refreshTimer !== undefined) clearInterval(res.state.refreshTimer);
  res.state.refreshTimer = undefined;
  await Promise.all([...res.watched.values()].map((w) => w.watcher?.close()));
  res.watched.clear();
}

/**
 * One page of batches, one per enabled source (by watch source id): its new stable files since its last
 * analyze. A malformed cursor, or one of another list, throws CURSOR_INVALID.
 */
async function scan(
  res: InboxResources<{ job_id: string }>,
  query: InboxScanQuery,
): Promise<{ items: InboxBatch[]; next_cursor: string | null }> {
  const after = cursorKey(query.cursor, INBOX_BATCHES_LIST, ["string"]);
  const limit = pageLimit(query.limit, Number.POSITIVE_INFINITY);
  await refreshOnce(res);
  const ordered = [...res.watched.values()]
    .filter((w) => after === undefined || w.source.id > String(after[0]))
    .sort((a, b) => (a.source.id < b.source.id ? -1 : a.source.id > b.source.id ? 1 : 0));
  const items: InboxBatch[] = [];
  for (const w of ordered.slice(0, limit)) items.push(await currentBatch(res, w));
  const last = items[items.length - 1];
  const more = ordered.length > limit && last !== undefined;
  return { items, next_cursor: more ? encodeCursor(INBOX_BATCHES_LIST, [last.watch_source_id]) : null };
}

async function watchedOrThrow(
  res: InboxResources<{ job_id: string }>,
  watchSourceId: string,
): Promise<Watched> {
  await refreshOnce(res);
  const w = res.watched.get(watchSourceId);
  if (w !== undefined) return w;
  await res.options.preferences.get("watch-sources", watchSourceId).catch(() => {
    throw new ReviewError(
      "WATCH_SOURCE_NOT_FOUND",
      `No enabled watch source with id ${JSON.stringify(watchSourceId)}.`,
    );
  });
  throw new ReviewError("WATCH_SOURCE_NOT_FOUND", `The watch source ${watchSourceId} is disabled.`);
}

/**
 * The inbox: watches enabled watch sources (filesystem events, falling back to polling), keeps for each file
 * the moment its size and mtime last changed, and reports per source the files that held still for the
 * source's stability delay and were not yet analyzed, as a batch whose id is derived from exactly those
 * files. `start()` begins watching; `stop()` closes every watcher. `scan()` also works when not started (it
 * walks the folders then, and stability counts from that first look). One module per concern (`watchers`,
 * `sources`, `batches`) over one shared resources object.
 */
export function createInboxEngine<J extends { job_id: string } = { job_id: string }>(
  options: InboxEngineOptions<J>,
) {
  const res = createInboxResources(options);
  return {
    /**
     * Starts watching every enabled source, and re-reads the sources periodically; each time, the autopilot
     * analyzes the stable batches of `auto_apply: "auto_safe"` sources and applies their safe rows.
     */
    start: () => start(res, () => autopilotOnce(res)),
    /** Closes every watcher. */
    stop: () => stop(res),
    /** For each enabled source (one page of them), its new stable files since its last analyze, as a batch. */
    scan: (query: InboxScanQuery = {}) => scan(res, query),
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
      const w = await watchedOrThrow(res, watchSourceId);
      const batch = await currentBatch(res, w);
      if (w.refused !== undefined) throw w.refused;
      const currentId = assertBatch(w, batch, batchId);
      if (options.analyzeFiles === undefined) throw new Error("inbox: no analyzeFiles configured");
      const job = await options.analyzeFiles(w.source, batch.files, actor);
      await rememberBatch(res, watchSourceId, currentId, batch.files, job.job_id);
      return job;
    },
    /** Whether a source's watcher currently polls (after a fallback, or when configured). */
    isPolling: (watchSourceId: string): boolean | undefined => res.watched.get(watchSourceId)?.polling,
    /**
     * Forgets the files handed to an analyze job that did not succeed (failed or cancelled), so the next
     * scan reports them again.
     */
    async forgetJob(jobId: string): Promise<void> {
      await runTransaction(options.db, (tx) => tx.delete(inboxSeen).where(eq(inboxSeen.jobId, jobId)));
    },
    /** Forgets what was analyzed for a source (its next scan reports every stable file again). */
    async forget(watchSourceId: string): Promise<void> {
      await runTransaction(options.db, (tx) =>
        tx.delete(inboxSeen).where(eq(inboxSeen.watchSourceId, watchSourceId)),
      );
    },
  };
}

/** The inbox engine's verbs. */
export type InboxEngine<J extends { job_id: string } = { job_id: string }> = ReturnType<
  typeof createInboxEngine<J>
>;
