import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import { and, asc, desc, eq, gt, max } from "drizzle-orm";
import type { AuditEntry, Job, JobEvent, JobEventType } from "../domain/job.js";
import { audit, events, jobs } from "../store/schema.js";
import type { Queryable } from "./db.js";

/** A job row as stored. */
export type JobRecord = typeof jobs.$inferSelect;

const iso = (ms: number) => new Date(ms).toISOString();

/** Maps a stored job to its public shape. */
export function toJob(r: JobRecord, planHash: string | null): Job {
  return {
    job_id: r.id,
    kind: r.kind,
    status: r.status,
    phase: r.phase,
    progress: r.progress,
    manifest_job_id: r.manifestJobId,
    target_job_id: r.targetJobId,
    retry_of: r.retryOf,
    params: r.params,
    revision: r.revision,
    plan_hash: planHash,
    result: r.result,
    completed_with_errors: r.status === "succeeded" && r.result?.completed_with_errors === true,
    error: r.error,
    actor: r.actor,
    created_at: iso(r.createdAt),
    started_at: r.startedAt === null ? null : iso(r.startedAt),
    finished_at: r.finishedAt === null ? null : iso(r.finishedAt),
    updated_at: iso(r.updatedAt),
  };
}

/** What the in-process hub announces: a new event of a job (with the job's state after it). */
export interface HubMessage {
  /** Global, increasing id of the event (the jobs stream's `id:`). */
  id: number;
  event: JobEvent;
}

/** An in-process fan-out of new events to SSE subscribers. */
export class EventHub {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  publish(message: HubMessage): void {
    this.emitter.emit("event", message);
  }
  subscribe(listener: (message: HubMessage) => void): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }
}

/** Appends an event to a job's log inside `tx`; returns what to publish once the transaction commits. */
export async function appendEvent(
  tx: Queryable,
  jobId: string,
  type: JobEventType,
  data: Record<string, unknown>,
  at: number,
): Promise<HubMessage> {
  const [last] = await tx
    .select({ seq: max(events.seq) })
    .from(events)
    .where(eq(events.jobId, jobId));
  const seq = (last?.seq ?? 0) + 1;
  const [row] = await tx.insert(events).values({ jobId, seq, type, data, at }).returning({ id: events.id });
  return { id: row?.id ?? 0, event: { job_id: jobId, seq, type, data, at: iso(at) } };
}

/** A job's events after `afterSeq`, oldest first. */
export async function listEvents(
  db: Queryable,
  jobId: string,
  afterSeq: number,
  limit: number,
): Promise<JobEvent[]> {
  const found = await db
    .select()
    .from(events)
    .where(and(eq(events.jobId, jobId), gt(events.seq, afterSeq)))
    .orderBy(asc(events.seq))
    .limit(limit);
  return found.map((e) => ({ job_id: e.jobId, seq: e.seq, type: e.type, data: e.data, at: iso(e.at) }));
}

/** Every event with a global id above `afterId`, oldest first (the jobs stream's replay). */
export async function listEventsSince(db: Queryable, afterId: number, limit: number): Promise<HubMessage[]> {
  const found = await db
    .select()
    .from(events)
    .where(gt(events.id, afterId))
    .orderBy(asc(events.id))
    .limit(limit);
  return found.map((e) => ({
    id: e.id,
    event: { job_id: e.jobId, seq: e.seq, type: e.type, data: e.data, at: iso(e.at) },
  }));
}

/** What one audit entry records. */
export interface AuditInput {
  jobId: string | null;
  actor: string;
  requestId: string | null;
  action: string;
  subject: string | null;
  before: unknown;
  after: unknown;
}

const GENESIS = "0".repeat(64);

function auditHash(prevHash: string, at: number, e: AuditInput): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        prevHash,
        at,
        e.jobId,
        e.actor,
        e.requestId,
        e.action,
        e.subject,
        e.before ?? null,
        e.after ?? null,
      ]),
    )
    .digest("hex");
}

/** Appends entries to the hash-chained audit log inside `tx` (which holds the write lock). */
export async function appendAudit(tx: Queryable, entries: readonly AuditInput[], at: number): Promise<void> {
  if (entries.length === 0) return;
  const [last] = await tx.select({ hash: audit.hash }).from(audit).orderBy(desc(audit.id)).limit(1);
  let prev = last?.hash ?? GENESIS;
  const values = entries.map((e) => {
    const hash = auditHash(prev, at, e);
    const row = {
      jobId: e.jobId,
      at,
      actor: e.actor,
      requestId: e.requestId,
      action: e.action,
      subject: e.subject,
      before: e.before ?? null,
      after: e.after ?? null,
      prevHash: prev,
      hash,
    };
    prev = hash;
    return row;
  });
  for (let i = 0; i < values.length; i += 200) await tx.insert(audit).values(values.slice(i, i + 200));
}

/** Walks the whole audit chain; returns the id of the first entry that does not verify, or null. */
export async function verifyAuditChain(db: Queryable): Promise<number | null> {
  let prev = GENESIS;
  let after = 0;
  for (;;) {
    const page = await db.select().from(audit).where(gt(audit.id, after)).orderBy(asc(audit.id)).limit(1000);
    if (page.length === 0) return null;
    for (const e of page) {
      const expected = auditHash(prev, e.at, {
        jobId: e.jobId,
        actor: e.actor,
        requestId: e.requestId,
        action: e.action,
        subject: e.subject,
        before: e.before,
        after: e.after,
      });
      if (e.prevHash !== prev || e.hash !== expected) return e.id;
      prev = e.hash;
      after = e.id;
    }
  }
}

/** Maps a stored audit entry to its public shape. */
export function toAuditEntry(e: typeof audit.$inferSelect): AuditEntry {
  return {
    audit_id: e.id,
    job_id: e.jobId,
    at: iso(e.at),
    actor: e.actor,
    request_id: e.requestId,
    action: e.action,
    subject: e.subject,
    before: e.before ?? null,
    after: e.after ?? null,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/** Loads a job row by id. */
export async function findJob(db: Queryable, id: string): Promise<JobRecord | undefined> {
  const [found] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return found;
}
