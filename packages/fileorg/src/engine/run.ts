import { runTransaction } from "@vetted/store";
import { eq } from "drizzle-orm";
import { jobs } from "../store/schema.js";
import type { EngineContext } from "./context.js";
import { appendEvent, type JobRecord } from "./records.js";

/** What a running job's body is given: its context, its record, and how to report. */
export interface JobRun {
  ctx: EngineContext;
  job: JobRecord;
  /** Enters a phase (recorded as an event and on the job; durations are kept per phase). */
  phase(name: string): Promise<void>;
  /** Reports progress 0..1 (throttled: at most a few events per second). */
  progress(value: number, data?: Record<string, unknown>): Promise<void>;
  /** True once a cancel was requested (or the engine is stopping); checked between batches. */
  isCancelled(): Promise<boolean>;
  /** Durations of the phases so far, in ms. */
  durations(): Record<string, number>;
}

/** Builds the run handle of a claimed job. */
export function createJobRun(ctx: EngineContext, job: JobRecord, stopping: () => boolean): JobRun {
  const durations: Record<string, number> = {};
  let current: { name: string; since: number } | undefined;
  let lastProgressAt = 0;
  const closePhase = (now: number) => {
    if (current !== undefined)
      durations[current.name] = (durations[current.name] ?? 0) + (now - current.since);
  };
  return {
    ctx,
    job,
    async phase(name) {
      const now = ctx.clock();
      closePhase(now);
      current = { name, since: now };
      const message = await runTransaction(ctx.db, async (tx) => {
        await tx.update(jobs).set({ phase: name, updatedAt: now }).where(eq(jobs.id, job.id));
        return appendEvent(tx, job.id, "phase", { phase: name }, now);
      });
      ctx.publish([message]);
    },
    async progress(value, data = {}) {
      const now = ctx.clock();
      if (now - lastProgressAt < 250 && value < 1) return;
      lastProgressAt = now;
      const progress = Math.min(1, Math.max(0, value));
      const message = await runTransaction(ctx.db, async (tx) => {
        await tx.update(jobs).set({ progress, updatedAt: now }).where(eq(jobs.id, job.id));
        return appendEvent(tx, job.id, "progress", { progress, ...data }, now);
      });
      ctx.publish([message]);
    },
    async isCancelled() {
      if (stopping()) return true;
      const [row] = await ctx.db
        .select({ status: jobs.status })
        .from(jobs)
        .where(eq(jobs.id, job.id))
        .limit(1);
      return row?.status === "cancelling";
    },
    durations() {
      closePhase(ctx.clock());
      current = current === undefined ? undefined : { name: current.name, since: ctx.clock() };
      return { ...durations };
    },
  };
}
