import { runTransaction } from "@vetted/store";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { moveJob } from "../../domain/transitions.js";
import { jobs, journal } from "../../store/schema.js";
import { resolveCopyFromDisk } from "../apply/copy-steps.js";
import { completeGroup, FILE_OPS, GROUP_SIZE, lstatOrUndefined, type RecordOutcome } from "../apply/group.js";
import { chunk } from "../db.js";
import { type JournalRecord, type JournalSigner, resolveMoveFromDisk } from "../journal.js";
import { isLeaseTakeable } from "../lease.js";
import { appendEvent, type JobRecord } from "../records.js";
import type { FileorgResources } from "../resources.js";
import { removePartialTrashInfo, removeTrashInfo, trashRootOf } from "../trash.js";

/** What start-up recovery found for one job. */
export interface RecoveredJob {
  jobId: string;
  resolved: { done: number; not_done: number; missing: number; tampered: number };
}

const ACTIVE = ["running", "cancelling"] as const;

/**
 * Takes over a job left running whose lease ran out (or whose owner is gone), as one process: a
 * compare-and-set on the lease it saw.
 */
export async function takeOver(res: FileorgResources, candidate: JobRecord): Promise<JobRecord | undefined> {
  const now = res.ctx.clock();
  if (!isLeaseTakeable(candidate, now)) return undefined;
  const [job] = await runTransaction(res.ctx.db, (tx) =>
    tx
      .update(jobs)
      .set({ leaseOwner: res.lease.owner, leaseExpiresAt: now + res.lease.leaseMs })
      .where(
        and(
          eq(jobs.id, candidate.id),
          inArray(jobs.status, [...ACTIVE]),
          candidate.leaseOwner === null ? isNull(jobs.leaseOwner) : eq(jobs.leaseOwner, candidate.leaseOwner),
          candidate.leaseExpiresAt === null
            ? isNull(jobs.leaseExpiresAt)
            : eq(jobs.leaseExpiresAt, candidate.leaseExpiresAt),
        ),
      )
      .returning(),
  );
  return job;
}

/** The roots an interrupted move is settled in: the allowed roots, and the trash a trash move touched. */
function rootsOf(record: JournalRecord, allowed: readonly string[]): readonly string[] {
  if (record.op === "trash") return [...allowed, trashRootOf(record.toPath)];
  if (record.op === "untrash") return [...allowed, trashRootOf(record.fromPath ?? "")];
  return allowed;
}

/**
 * The `.trashinfo` of an interrupted trash move follows its file: a file that did not reach the trash (or
 * left it again) leaves no info behind; one that did keeps it.
 */
function settleTrashInfo(record: JournalRecord, state: "done" | "not_done" | "failed"): void {
  const original = record.op === "trash" ? (record.fromPath ?? "") : record.toPath;
  if (record.op === "trash") removePartialTrashInfo(record.toPath);
  if (record.op === "trash" && state !== "done") removeTrashInfo(record.toPath, original);
  if (record.op === "untrash" && state === "done") removeTrashInfo(record.fromPath ?? "", original);
}

/** Settles each unfinished, correctly signed journal intent of `job` from the disk. */
async function settleIntents(res: FileorgResources, signer: JournalSigner, job: JobRecord) {
  const open = await res.ctx.db
    .select()
    .from(journal)
    .where(and(eq(journal.jobId, job.id), eq(journal.state, "intent")))
    .orderBy(asc(journal.id));
  const resolved = { done: 0, not_done: 0, missing: 0, tampered: 0 };
  const outcomes: RecordOutcome[] = [];
  for (const record of open) {
    if (!signer.verify(record)) {
      resolved.tampered++;
      continue;
    }
    if (FILE_OPS.has(record.op)) {
      const roots = rootsOf(record, res.ctx.guard.roots);
      const verdict =
        record.op === "copy" || record.op === "uncopy"
          ? await resolveCopyFromDisk(record, roots)
          : await resolveMoveFromDisk(record, roots);
      settleTrashInfo(record, verdict.state);
      if (verdict.state === "done") resolved.done++;
      else if (verdict.state === "not_done") resolved.not_done++;
      else resolved.missing++;
      const error =
        verdict.state === "failed"
          ? { code: verdict.code, message: "Neither the source nor the target exists after a crash." }
          : null;
      outcomes.push({ record, state: verdict.state, error });
    } else {
      const there = (await lstatOrUndefined(record.toPath)) !== undefined;
      const ok = record.op === "mkdir" ? there : !there;
      outcomes.push({ record, state: ok ? "done" : "not_done", error: null });
    }
  }
  const kind = job.kind === "rollback" ? "rollback" : "apply";
  for (const part of chunk(outcomes, GROUP_SIZE)) {
    await completeGroup(res.ctx, job, kind, part, [], undefined);
  }
  return { open: open.length, resolved };
}

/** Ends a taken-over job `failed` (INTERRUPTED) with what recovery settled. */
async function failInterrupted(
  res: FileorgResources,
  job: JobRecord,
  settled: { open: number; resolved: RecoveredJob["resolved"] },
) {
  const { ctx } = res;
  const { resolved } = settled;
  const at = ctx.clock();
  const message =
    `The process stopped while this ${job.kind} job ran. Recovery settled ${settled.open} unfinished ` +
    `journal intents from the disk (${resolved.done} completed, ${resolved.not_done} not done` +
    `${resolved.missing > 0 ? `, ${resolved.missing} missing` : ""}${resolved.tampered > 0 ? `, ${resolved.tampered} tampered and left alone` : ""}). ` +
    "The journal is consistent: retry the job or roll it back.";
  const messages = await runTransaction(ctx.db, async (tx) => {
    const mine = and(eq(jobs.id, job.id), eq(jobs.leaseOwner, res.lease.owner));
    const [current] = await tx.select({ status: jobs.status }).from(jobs).where(mine);
    if (current === undefined) return [];
    const status = moveJob(current.status, "failed", job.id);
    await tx
      .update(jobs)
      .set({
        status,
        phase: status,
        error: { code: "INTERRUPTED", message, details: resolved },
        finishedAt: at,
        updatedAt: at,
        leaseExpiresAt: null,
      })
      .where(and(mine, eq(jobs.status, current.status)));
    return [
      await appendEvent(tx, job.id, "recovered", { ...resolved }, at),
      await appendEvent(tx, job.id, "finished", { status, error: { code: "INTERRUPTED", message } }, at),
    ];
  });
  ctx.publish(messages);
}

/**
 * Start-up recovery: every job left `running`/`cancelling` by a crash is resolved. Each intent without a
 * completion is settled from the disk, rows follow, and the job ends `failed` with a clear error.
 */
export async function recoverInterruptedJobs(res: FileorgResources): Promise<RecoveredJob[]> {
  const stuck = await res.ctx.db
    .select()
    .from(jobs)
    .where(inArray(jobs.status, [...ACTIVE]));
  const out: RecoveredJob[] = [];
  for (const candidate of stuck) {
    const job = await takeOver(res, candidate);
    if (job === undefined) continue;
    const settled = await settleIntents(res, res.signer, job);
    await failInterrupted(res, job, settled);
    out.push({ jobId: job.id, resolved: settled.resolved });
  }
  return out;
}
