import { readdirSync, readFileSync } from "node:fs";
import type { TaskProcessRecord } from "../../domain/automation.js";
import { type ProcStat, readProcStat } from "../../kernel/owner-process.js";

/*
 * The processes of a task, found through /proc (Linux), so that none outlives the task or the server that
 * ran it: the process group the task was started in (recorded with its leader's start time, which defeats
 * pid reuse), every process carrying the task's marker in its environment (`VETTED_TASK_ID=<id>`, which a
 * child that called `setsid` keeps), and every descendant of those. Elsewhere nothing is found and only the
 * recorded process group is signalled while the server that started it lives.
 */

/** The environment variable every process of a task inherits: the task's id. */
export const TASK_MARKER_ENV = "VETTED_TASK_ID";

export { currentOwner, isOwnerGone, readProcStat } from "../../kernel/owner-process.js";

function allProcesses(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcStat(Number(name)))
    .filter((s): s is ProcStat => s !== undefined && !s.zombie);
}

function carriesMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker);
  } catch {
    return false;
  }
}

/**
 * The live processes of a task: its recorded group (unless the leader's pid now names another process),
 * the processes carrying its marker, and all their descendants. Never this process.
 */
export function findTaskProcesses(taskId: string, record: TaskProcessRecord | null): number[] {
  const procs = allProcesses();
  const marker = `${TASK_MARKER_ENV}=${taskId}`;
  const leader = record === null ? undefined : procs.find((p) => p.pid === record.pgid);
  const groupIsOurs = record !== null && (leader === undefined || leader.start === record.start);
  const found = new Set(
    procs
      .filter((p) => (groupIsOurs && p.pgid === record.pgid) || carriesMarker(p.pid, marker))
      .map((p) => p.pid),
  );
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  found.delete(process.pid);
  return [...found];
}

/** Sends `signal` to every process of the task (and its recorded group); answers how many were found. */
export function signalTaskProcesses(
  taskId: string,
  record: TaskProcessRecord | null,
  signal: NodeJS.Signals,
): number {
  const pids = findTaskProcesses(taskId, record);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: it exited meanwhile.
    }
  }
  return pids.length;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends every process of a task: SIGTERM, then SIGKILL to whatever is left after `graceMs` (and to what
 * was forked meanwhile), until none is found. Answers how many processes were found at first.
 */
export async function killTaskProcesses(
  taskId: string,
  record: TaskProcessRecord | null,
  graceMs: number,
): Promise<number> {
  const first = signalTaskProcesses(taskId, record, "SIGTERM");
  if (first === 0) return 0;
  const termEnd = Date.now() + graceMs;
  while (Date.now() < termEnd && findTaskProcesses(taskId, record).length > 0) await pause(50);
  for (let round = 0; round < 40 && signalTaskProcesses(taskId, record, "SIGKILL") > 0; round++) {
    await pause(50);
  }
  return first;
}
