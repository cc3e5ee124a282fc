import { decodeCursor, encodeCursor, MAX_PAGE_LIMIT, toKeysetPage } from "@vetted/store";
import { and, desc, eq, gt, inArray, lt, or, type SQL } from "drizzle-orm";
import {
  type AuditList,
  FINISHED_JOB_STATUSES,
  isFinished,
  type Job,
  type JobEvent,
  type JobKind,
  type JobList,
  type JobStatus,
} from "../../domain/job.js";
import { audit, jobs } from "../../store/schema.js";
import { planHashOfJob } from "../manifest/index.js";
import { type JobRecord, listEvents, toAuditEntry, toJob, verifyAuditChain } from "../records.js";
import type { FileorgResources } from "../resources.js";
import { snapshotJob } from "./create.js";

/** The list names bound into cursors: a cursor of one list is refused by another (CURSOR_INVALID). */
const JOBS_LIST = "fileorg.jobs";
const AUDIT_LIST = "fileorg.audit";

/** Filters and page of a job listing. */
export interface JobQuery {
  kind?: JobKind | undefined;
  status?: JobStatus | undefined;
  finished?: boolean | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

const clamp = (n: number, max: number) => Math.min(Math.max(n, 1), max);

/** Jobs newest first. A malformed or foreign cursor throws CURSOR_INVALID. */
export async function listJobs(res: FileorgResources, query: JobQuery = {}): Promise<JobList> {
  const limit = clamp(query.limit ?? 50, MAX_PAGE_LIMIT);
  const where: SQL[] = [];
  if (query.kind !== undefined) where.push(eq(jobs.kind, query.kind));
  if (query.status !== undefined) where.push(eq(jobs.status, query.status));
  if (query.finished === true) where.push(inArray(jobs.status, [...FINISHED_JOB_STATUSES]));
  if (query.cursor !== undefined && query.cursor !== "") {
    const [createdAt, id] = decodeCursor(query.cursor, JOBS_LIST, ["integer", "string"]) as [number, string];
    const cond = or(lt(jobs.createdAt, createdAt), and(eq(jobs.createdAt, createdAt), lt(jobs.id, id)));
    if (cond !== undefined) where.push(cond);
  }
  const found = await res.ctx.db
    .select()
    .from(jobs)
    .where(where.length === 0 ? undefined : and(...where))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(limit + 1);
  return toKeysetPage(
    found,
    limit,
    (j) => toJob(j, planHashOfJob(j)),
    (r: JobRecord) => encodeCursor(JOBS_LIST, [r.createdAt, r.id]),
  );
}

/** A job's events after `after` (a sequence number: the events route's `after`, and its next_cursor). */
export async function listJobEvents(
  res: FileorgResources,
  jobId: string,
  after = 0,
  limit = 500,
): Promise<{ items: JobEvent[]; next_cursor: string | null }> {
  await snapshotJob(res, jobId);
  const items = await listEvents(res.ctx.db, jobId, after, clamp(limit, 1000));
  const last = items[items.length - 1];
  return { items, next_cursor: items.length === limit && last !== undefined ? String(last.seq) : null };
}

/**
 * Where an audit page starts: a store cursor of this list, or a bare decimal sequence (the form the audit
 * route documented before the store cursors; `0` is the start). Anything else throws CURSOR_INVALID.
 */
function auditAfter(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  if (/^\d{1,15}$/.test(cursor)) return Number(cursor);
  const [id] = decodeCursor(cursor, AUDIT_LIST, ["integer"]) as [number];
  return id;
}

/** A job's audit entries (oldest first) and whether the whole chain verifies. */
export async function listAudit(
  res: FileorgResources,
  jobId: string,
  cursor?: string,
  limit = 200,
): Promise<AuditList> {
  await snapshotJob(res, jobId);
  const after = auditAfter(cursor);
  const n = clamp(limit, 1000);
  const found = await res.ctx.db
    .select()
    .from(audit)
    .where(and(or(eq(audit.jobId, jobId), eq(audit.subject, jobId)), gt(audit.id, after)))
    .orderBy(audit.id)
    .limit(n + 1);
  const page = toKeysetPage(found, n, toAuditEntry, (e) => encodeCursor(AUDIT_LIST, [e.id]));
  return { ...page, chain_valid: (await verifyAuditChain(res.ctx.db)) === null };
}

/** Resolves when the job is finished (or after `timeoutMs`), with its final snapshot. */
export async function waitForJob(res: FileorgResources, jobId: string, timeoutMs = 60_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await snapshotJob(res, jobId);
    if (isFinished(job.status) || Date.now() > deadline) return job;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 50);
      const off = res.ctx.hub.subscribe((m) => {
        if (m.event.job_id === jobId && m.event.type === "finished") done();
      });
      function done() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }
}
