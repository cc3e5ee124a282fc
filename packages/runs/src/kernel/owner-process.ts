import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { OwnerProcess } from "../domain/automation.js";

/*
 * Which process holds a lease, and whether it is provably gone. A process is known by its host, the
 * kernel's boot id, its pid and its start time (clock ticks after boot, /proc/<pid>/stat field 22), read
 * through /proc (Linux): the start time defeats pid reuse, the boot id a pid of an earlier boot. A process
 * of another host, or one whose start time is unknown (no /proc), is never known to be gone: its leases run
 * out. Processes that share a hostname and a kernel but not a pid namespace are not told apart: give
 * containers sharing one database file distinct hostnames (Docker's default).
 */

/** The fields of a process's stat line the engine reads. */
export interface ProcStat {
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

/** This process, to record as the owner of what it leases. */
export function currentOwner(): OwnerProcess {
  return { host: hostname(), boot: bootId(), pid: process.pid, start: readProcStat(process.pid)?.start ?? 0 };
}

/**
 * True when the owner ran on this machine in this boot and its process is gone (or its pid now belongs
 * to a later process): what it leased need not wait for the lease to run out.
 */
export function isOwnerGone(owner: OwnerProcess | null | undefined): boolean {
  if (owner === null || owner === undefined || owner.boot === "" || owner.start === 0) return false;
  if (owner.host !== hostname() || owner.boot !== bootId()) return false;
  const stat = readProcStat(owner.pid);
  return stat === undefined || stat.zombie || stat.start !== owner.start;
}

/** `owner` as the tail of a worker id: `pid:start:boot:host` (a hostname holds no `@`, `#` or `:`). */
export function ownerTag(owner: OwnerProcess): string {
  return `${owner.pid}:${owner.start}:${owner.boot}:${owner.host}`;
}

/**
 * The owner process named by a lease token `<id>@<pid:start:boot:host>#<claim>` (see {@link ownerTag}), or
 * undefined when the token names none (a token of an older version, or of a test).
 */
export function ownerOfToken(token: string): OwnerProcess | undefined {
  const hash = token.lastIndexOf("#");
  const worker = hash < 0 ? token : token.slice(0, hash);
  const at = worker.lastIndexOf("@");
  if (at < 0) return undefined;
  const match = /^(\d+):(\d+):([0-9a-f-]+):(.+)$/.exec(worker.slice(at + 1));
  if (match === null) return undefined;
  const [, pid, start, boot, host] = match;
  if (pid === undefined || start === undefined || boot === undefined || host === undefined) return undefined;
  return { host, boot, pid: Number(pid), start: Number(start) };
}
