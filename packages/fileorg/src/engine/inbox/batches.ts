import { runTransaction } from "@vetted/store";
import { eq } from "drizzle-orm";
import { DEFAULT_STABILITY_MS, type InboxBatch, type InboxFile } from "../../domain/inbox-batch.js";
import { ReviewError } from "../../review-errors.js";
import { inboxSeen } from "../../store/review-schema.js";
import { confinedFs } from "../confined-fs.js";
import { inboxBatchId } from "../stable-ids.js";
import { placedByApply } from "./placed.js";
import type { InboxResources, Watched } from "./resources.js";
import { confirmRoot, createWatcher, observe, walk } from "./watchers.js";

type Res = InboxResources<{ job_id: string }>;

/**
 * Looks again at each candidate now (an event may not have arrived yet for a file still being written),
 * through the confined layer: a file whose real parent left the watched folder (a symlink swapped in) is
 * dropped.
 */
function recheck(res: Res, w: Watched, root: string, candidates: readonly string[]): void {
  for (const path of candidates) {
    const seenNow = confinedFs.lstatIn([root], path);
    if (seenNow.code === undefined && seenNow.facts.isFile) {
      observe(res, w, path, { size: seenNow.facts.size, mtimeMs: seenNow.facts.mtime });
    } else {
      w.files.delete(path);
    }
  }
}

/** The source's batch: its files that held still for the stability delay and were not yet analyzed. */
export async function currentBatch(res: Res, w: Watched): Promise<InboxBatch> {
  const root = (await confirmRoot(res, w)) ? w.root : undefined;
  if (root === undefined) {
    const error = w.refused ? { error: { code: w.refused.code, message: w.refused.message } } : {};
    return { watch_source_id: w.source.id, batch_id: null, files: [], ...error };
  }
  if (w.watcher === undefined) {
    await walk(res, w, root);
    if (res.state.started) createWatcher(res, w, res.options.usePolling ?? false);
  } else {
    await w.ready;
  }
  const stabilityMs = w.source.stability_ms ?? DEFAULT_STABILITY_MS;
  const seenRows = await res.options.db
    .select({ path: inboxSeen.path, size: inboxSeen.size, mtime: inboxSeen.mtime })
    .from(inboxSeen)
    .where(eq(inboxSeen.watchSourceId, w.source.id));
  const seen = new Map(seenRows.map((r) => [r.path, r]));
  const isNew = (path: string, size: number, mtime: number) => {
    const s = seen.get(path);
    return s === undefined || s.size !== size || s.mtime !== mtime;
  };
  const fresh = [...w.files.entries()].filter(([path, o]) => isNew(path, o.size, o.mtime)).map(([p]) => p);
  // Files an apply put here (the output root may lie inside the watched folder) are never offered again.
  const placed = await placedByApply(res.options.db, fresh);
  const candidates = placed.size === 0 ? fresh : fresh.filter((p) => !placed.has(p));
  recheck(res, w, root, candidates);
  const now = res.clock();
  const files: InboxFile[] = [];
  for (const path of candidates) {
    const o = w.files.get(path);
    if (o === undefined || now - o.since < stabilityMs || !isNew(path, o.size, o.mtime)) continue;
    files.push({ path, size: o.size, mtime: o.mtime });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { watch_source_id: w.source.id, batch_id: inboxBatchId(files), files };
}

/** Throws INBOX_EMPTY when nothing is new, BATCH_CHANGED when the asked batch is no longer the current one. */
export function assertBatch(w: Watched, batch: InboxBatch, batchId: string | undefined): string {
  if (batch.batch_id === null) {
    throw new ReviewError(
      "INBOX_EMPTY",
      `Nothing new and stable in ${w.source.path} since its last analyze.`,
      {
        watch_source_id: w.source.id,
      },
    );
  }
  if (batchId !== undefined && batchId !== batch.batch_id) {
    throw new ReviewError(
      "BATCH_CHANGED",
      `The files of ${w.source.path} changed since batch ${batchId} was scanned; scan again.`,
      { watch_source_id: w.source.id, batch_id: batchId, current_batch_id: batch.batch_id },
    );
  }
  return batch.batch_id;
}

/** Remembers a batch's files as handed to an analyze job, so the next scan reports only newer ones. */
export async function rememberBatch(
  res: Res,
  watchSourceId: string,
  batchId: string,
  files: readonly InboxFile[],
  jobId: string,
): Promise<void> {
  const now = res.clock();
  await runTransaction(res.options.db, async (tx) => {
    for (const f of files) {
      const values = { size: f.size, mtime: f.mtime, batchId, jobId, analyzedAt: now };
      await tx
        .insert(inboxSeen)
        .values({ watchSourceId, path: f.path, ...values })
        .onConflictDoUpdate({ target: [inboxSeen.watchSourceId, inboxSeen.path], set: values });
    }
  });
}
