import { runTransaction } from "@vetted/store";
import { and, asc, eq, lte } from "drizzle-orm";
import type { TaskProcessRecord } from "../../domain/automation.js";
import { automationTasks } from "../../store/schema.js";
import { currentOwner, isOwnerGone } from "./task-processes.js";
import { moveTask, readTask, type TaskRow, type TaskStore } from "./task-store.js";

/*
 * Who runs a task: claims (a lease and the owner's process identity), heartbeats, the process group an
 * attempt records, and finding the running tasks whose owner died.
 */

/** The oldest queued task due now, claimed for this process (attempt + 1, a fresh lease), or undefined. */
export async function claimNext(s: TaskStore, leaseMs: number): Promise<TaskRow | undefined> {
  const now = s.clock.now();
  const candidates = await s.db
    .select()
    .from(automationTasks)
    .where(and(eq(automationTasks.status, "queued"), lte(automationTasks.notBefore, now)))
    .orderBy(asc(automationTasks.notBefore), asc(automationTasks.createdAt))
    .limit(5);
  for (const row of candidates) {
    const claimed = await moveTask(s, row.id, "queued", "running", {
      attempt: row.attempt + 1,
      owner: s.workerId,
      ownerProcess: currentOwner(),
      process: null,
      leaseUntil: now + leaseMs,
      startedAt: row.startedAt ?? now,
      message: null,
      reason: null,
      exitCode: null,
    });
    if (claimed !== undefined) return readTask(s.db, row.id);
  }
  return undefined;
}

/** Extends the leases of this process's running tasks; answers which of them were asked to cancel. */
export async function heartbeat(
  s: TaskStore,
  taskIds: readonly string[],
  leaseMs: number,
): Promise<string[]> {
  const cancelled: string[] = [];
  for (const taskId of taskIds) {
    const [row] = await runTransaction(s.db, (tx) =>
      tx
        .update(automationTasks)
        .set({ leaseUntil: s.clock.now() + leaseMs })
        .where(
          and(
            eq(automationTasks.id, taskId),
            eq(automationTasks.status, "running"),
            eq(automationTasks.owner, s.workerId),
          ),
        )
        .returning({ cancel: automationTasks.cancelRequested }),
    );
    if (row?.cancel === true) cancelled.push(taskId);
  }
  return cancelled;
}

/** A running task to recover, and the guard its move needs (its lease ran out, or its owner is gone). */
export interface Orphan {
  row: TaskRow;
  guard: { leaseExpiredBefore: number } | { owner: string };
}

/**
 * Running tasks whose process died, for recovery: their lease ran out, or their owner ran on this machine
 * and its process is gone (no need to wait for the lease then).
 */
export async function orphanedTasks(s: TaskStore): Promise<Orphan[]> {
  const now = s.clock.now();
  const rows = await s.db
    .select()
    .from(automationTasks)
    .where(eq(automationTasks.status, "running"))
    .limit(100);
  return rows.flatMap((row): Orphan[] => {
    if (row.leaseUntil !== null && row.leaseUntil < now) return [{ row, guard: { leaseExpiredBefore: now } }];
    if (row.owner !== null && isOwnerGone(row.ownerProcess)) return [{ row, guard: { owner: row.owner } }];
    return [];
  });
}

/** Records the process group of this process's running attempt of a task (for a later recovery to kill). */
export async function recordProcess(s: TaskStore, taskId: string, record: TaskProcessRecord): Promise<void> {
  await runTransaction(s.db, (tx) =>
    tx
      .update(automationTasks)
      .set({ process: record })
      .where(
        and(
          eq(automationTasks.id, taskId),
          eq(automationTasks.status, "running"),
          eq(automationTasks.owner, s.workerId),
        ),
      ),
  );
}
