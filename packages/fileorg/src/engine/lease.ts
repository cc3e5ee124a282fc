import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Engines of this process that are running (their owner ids), shared under a global symbol so every copy of
 * the module agrees: a lease held by an engine of this process is live exactly while that engine runs.
 */
const LIVE_KEY = Symbol.for("@vetted/fileorg-live-lease-owners");

function liveOwners(): Set<string> {
  const holder = globalThis as typeof globalThis & { [LIVE_KEY]?: Set<string> };
  let live = holder[LIVE_KEY];
  if (live === undefined) {
    live = new Set();
    holder[LIVE_KEY] = live;
  }
  return live;
}

/**
 * The start time of process `pid` (clock ticks after boot, /proc/<pid>/stat field 22), or undefined when
 * it is gone or unknown (no /proc).
 */
function startTimeOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state …": comm may hold spaces and parentheses; starttime is the 20th field after it.
    const start = Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isSafeInteger(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A new lease owner id for one engine: `host:pid:nonce`, the nonce starting with the process's start time
 * (`<start>.<random>`), so a pid later reused by another process is not taken for the owner.
 */
export function createLeaseOwner(): string {
  const start = startTimeOf(process.pid);
  const random = randomBytes(6).toString("hex");
  return `${hostname()}:${process.pid}:${start === undefined ? random : `${start}.${random}`}`;
}

/** Marks `owner` as a running engine of this process (or no longer). */
export function setOwnerLive(owner: string, live: boolean): void {
  if (live) liveOwners().add(owner);
  else liveOwners().delete(owner);
}

function parseOwner(owner: string): { host: string; pid: number; start: number | undefined } | undefined {
  const last = owner.lastIndexOf(":");
  const middle = owner.lastIndexOf(":", last - 1);
  if (middle <= 0) return undefined;
  const pid = Number(owner.slice(middle + 1, last));
  const start = /^(\d+)\./.exec(owner.slice(last + 1))?.[1];
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { host: owner.slice(0, middle), pid, start: start === undefined ? undefined : Number(start) };
}

/**
 * True when the owner of a lease is known to be gone before its lease expires: an engine of this process
 * that stopped, or a process on this host that no longer exists (or whose pid now names a process that
 * started later than the owner). Owners on other hosts are never known to be gone: their leases run out.
 */
export function isOwnerGone(owner: string): boolean {
  const parsed = parseOwner(owner);
  if (parsed === undefined || parsed.host !== hostname()) return false;
  if (parsed.pid === process.pid) return !liveOwners().has(owner);
  if (parsed.start !== undefined) {
    const start = startTimeOf(parsed.pid);
    if (start !== undefined) return start !== parsed.start;
  }
  try {
    process.kill(parsed.pid, 0); // signal 0: only asks whether the process exists
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Whether a running job's lease may be taken over at `now`: no owner, expired, or its owner is gone. */
export function isLeaseTakeable(
  job: { leaseOwner: string | null; leaseExpiresAt: number | null },
  now: number,
): boolean {
  if (job.leaseOwner === null || job.leaseExpiresAt === null) return true;
  return job.leaseExpiresAt <= now || isOwnerGone(job.leaseOwner);
}
