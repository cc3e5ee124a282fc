import type { Actor, Job } from "../../domain/job.js";
import type { FileorgEngine } from "../engine.js";
import { currentBatch } from "./batches.js";
import { claimFiles, releaseClaim, settleClaim } from "./claims.js";
import type { InboxResources, Watched, WatchSource } from "./resources.js";

type Res = InboxResources<{ job_id: string }>;

/** Who the inbox autopilot acts as (in the audit log and on its jobs). */
export const AUTOPILOT_ACTOR: Actor = { actor: "inbox-autopilot" };

/** One source's turn: claim its stable batch, analyze exactly the files claimed, hand the job on. */
async function takeBatch(res: Res, w: Watched): Promise<void> {
  const { analyzeFiles, autoApply } = res.options;
  if (analyzeFiles === undefined || autoApply === undefined) return;
  const batch = await currentBatch(res, w);
  if (batch.batch_id === null || w.refused !== undefined) return;
  await res.options.raceHooks?.beforeClaim?.(w.source.id);
  const claim = await claimFiles(res, w.source.id, batch.files);
  if (claim.files.length === 0) return; // another pass (or process) took them first
  let jobId: string;
  try {
    jobId = (await analyzeFiles(w.source, claim.files, AUTOPILOT_ACTOR)).job_id;
  } catch (err) {
    await releaseClaim(res, w.source.id, claim);
    throw err;
  }
  await settleClaim(res, w.source.id, claim, jobId);
  autoApply(w.source, jobId).catch((err: unknown) =>
    res.warn("inbox autopilot could not apply", {
      watch_source_id: w.source.id,
      job_id: jobId,
      error: String(err),
    }),
  );
}

/**
 * One pass of the autopilot: for each watched source with `auto_apply: "auto_safe"` whose stable batch is
 * waiting, the batch's files are claimed (one statement, atomic across processes: a file is taken once),
 * analyze runs over exactly the files claimed (with the source's pack and the saved rules, like any inbox
 * analyze) and the job is handed to `autoApply`, which applies its `auto_safe` rows once it succeeded. A
 * source is taken by one pass of this engine at a time; failures are warnings (an analyze that could not
 * start gives its files back; the batch of a failed analyze is offered again by the next scan).
 */
export async function autopilotOnce(res: Res): Promise<void> {
  if (res.options.autoApply === undefined) return;
  for (const w of [...res.watched.values()]) {
    const id = w.source.id;
    if (w.source.auto_apply !== "auto_safe" || res.state.autopilot.has(id)) continue;
    res.state.autopilot.add(id);
    try {
      await takeBatch(res, w);
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
