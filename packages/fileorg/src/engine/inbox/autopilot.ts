import type { Actor, Job } from "../../domain/job.js";
import type { FileorgEngine } from "../engine.js";
import { currentBatch } from "./batches.js";
import type { InboxResources, WatchSource } from "./resources.js";

type Res = InboxResources<{ job_id: string }>;

/** Who the inbox autopilot acts as (in the audit log and on its jobs). */
export const AUTOPILOT_ACTOR: Actor = { actor: "inbox-autopilot" };

/** Starts an analyze job over a source's current batch (the inbox's own `analyze` verb). */
type AnalyzeBatch = (watchSourceId: string, batchId: string, actor: Actor) => Promise<{ job_id: string }>;

/**
 * One pass of the autopilot: for each watched source with `auto_apply: "auto_safe"` whose stable batch is
 * waiting, analyze runs over exactly that batch (with the source's pack and the saved rules, like any inbox
 * analyze; the batch is remembered, so it is never taken twice) and the job is handed to `autoApply`, which
 * applies its `auto_safe` rows once it succeeded. A source is taken by one pass at a time; failures are
 * warnings (the batch of a failed analyze is offered again by the next scan).
 */
export async function autopilotOnce(res: Res, analyze: AnalyzeBatch): Promise<void> {
  const autoApply = res.options.autoApply;
  if (autoApply === undefined) return;
  for (const w of [...res.watched.values()]) {
    const id = w.source.id;
    if (w.source.auto_apply !== "auto_safe" || res.state.autopilot.has(id)) continue;
    res.state.autopilot.add(id);
    try {
      const batch = await currentBatch(res, w);
      if (batch.batch_id === null || w.refused !== undefined) continue;
      const job = await analyze(id, batch.batch_id, AUTOPILOT_ACTOR);
      autoApply(w.source, job.job_id).catch((err: unknown) =>
        res.warn("inbox autopilot could not apply", {
          watch_source_id: id,
          job_id: job.job_id,
          error: String(err),
        }),
      );
    } catch (err) {
      res.warn("inbox autopilot could not analyze", { watch_source_id: id, error: String(err) });
    } finally {
      res.state.autopilot.delete(id);
    }
  }
}

/** What applying an autopilot job's safe rows needs of the core engine. */
export type AutoApplyEngine = Pick<FileorgEngine, "waitForJob" | "listRows" | "apply">;

/**
 * The autopilot's apply step over the core engine: once the analyze job succeeded, its `auto_safe` rows
 * (and only those) are applied as a normal journaled apply job, undoable by rollback; every other row waits
 * for review in the same manifest. Nothing is applied when no row is `auto_safe`.
 */
export function autoApplySafeRows(
  fileorg: AutoApplyEngine,
  options: { timeoutMs?: number } = {},
): (source: WatchSource, jobId: string) => Promise<Job | undefined> {
  return async (_source, jobId) => {
    const analyzed = await fileorg.waitForJob(jobId, options.timeoutMs ?? 6 * 3_600_000);
    if (analyzed.status !== "succeeded") return undefined;
    const safe = await fileorg.listRows(jobId, {
      bucket: "auto_safe",
      action: "move",
      status: "pending",
      limit: 1,
    });
    if (safe.items.length === 0) return undefined;
    return fileorg.apply({ job_id: jobId, buckets: ["auto_safe"] }, AUTOPILOT_ACTOR);
  };
}
