import { readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { OwnerProcess, TaskProcessRecord } from "../../domain/automation.js";

/*
 * The processes of a task, found through /proc (Linux), so that none outlives the task or the server that
 * ran it: the process group the task was started in (recorded with its leader's start time, which defeats
 * pid reuse), every process carrying the task's marker in its environment (`VETTED_TASK_ID=<id>`, which a
 * child that called `setsid` keeps), and every descendant of those. Elsewhere nothing is found and only the
 * recorded process group is signalled while the server that started it lives.
 */

/** The environment variable every process of a task inherits: the task's id. */
export const TASK_MARKER_ENV = "VETTED_TASK_ID";

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  start: number;
  zombie: boolean;
}

/** A process's stat line, or undefined when it is gone (or there is no /proc). */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime
  // cstime priority nice threads itrealvalue starttime ...": comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgid] = fields;
  const start = Number(fields[19]);
  if (state === undefined || !Number.isFinite(start)) return undefined;
  return { pid, ppid: Number(ppid), pgid: Number(pgid), start, zombie: state === "Z" };
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

/** This server process, to record as a task's owner. */
export function currentOwner(): OwnerProcess {
  return { host: hostname(), boot: bootId(), pid: process.pid, start: readProcStat(process.pid)?.start ?? 0 };
}

/**
 * True when the owner ran on this machine in this boot and its process is gone (or its pid now belongs
 * to a later process): its tasks need not wait for their lease to run out.
 */
export function isOwnerGone(owner: OwnerProcess | null): boolean {
  if (owner === null || owner.boot === "" || owner.start === 0) return false;
  if (owner.host !== hostname() || owner.boot !== bootId()) return false;
  const stat = readProcStat(owner.pid);
  return stat === undefined || stat.zombie || stat.start !== owner.start;
}

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
