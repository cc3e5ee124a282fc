import type { ApplyPlan } from "../../domain/apply-plan.js";
import type { ApplyPlanRequest } from "../../domain/job.js";
import { JobStateError } from "../../errors.js";
import type { Queryable } from "../db.js";
import { assertRowsOfManifest } from "../jobs/row-ids.js";
import { planHashOfJob, requireManifestJob } from "../manifest/index.js";
import { tallyManifest } from "./selection.js";

/**
 * What an apply of the manifest with this request would move and leave, by bucket, and the plan hash to
 * apply exactly that (no file is read: a dry run also checks each file). Throws JOB_NOT_FOUND,
 * WRONG_JOB_KIND, JOB_NOT_READY, UNKNOWN_ROW_IDS.
 */
export async function planApply(db: Queryable, request: ApplyPlanRequest): Promise<ApplyPlan> {
  const manifest = await requireManifestJob(db, request.job_id);
  if (manifest.status !== "succeeded") {
    throw new JobStateError(
      "JOB_NOT_READY",
      `Analyze job ${manifest.id} is ${manifest.status}, not succeeded.`,
      {
        job_id: manifest.id,
        status: manifest.status,
      },
    );
  }
  if (request.row_ids !== undefined) await assertRowsOfManifest(db, manifest.id, request.row_ids);
  const tally = await tallyManifest(db, manifest.id, {
    buckets: request.buckets,
    rowIds: request.row_ids === undefined ? undefined : [...new Set(request.row_ids)],
  });
  return { job_id: manifest.id, plan_hash: planHashOfJob(manifest), ...tally };
}
