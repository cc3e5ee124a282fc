/**
 * Who holds a lease, which sets how long it may sit idle and how long its acquire may wait for a slot:
 * `run` (the run worker: waits as long as it takes, the worker keeps such runs out of its general slots),
 * `session` (a recording session: a person drives it), `computer-use` (a computer-use page between
 * previews and executions).
 */
export type LeasePurpose = "run" | "session" | "computer-use";

/** How long a lease of one purpose may sit unused, and how long its acquire may wait for a free slot. */
export interface HoldPolicy {
  /** Closed (and its slot freed) after this long unused. */
  idleMs?: number;
  /** An acquire that finds every slot taken waits at most this long, then throws `BROWSER_BUSY`. */
  waitMs?: number;
}

/** The defaults of the host option `holding`: interactive holders wait briefly, idle out sooner. */
export const DEFAULT_HOLDING = {
  run: { waitMs: Number.POSITIVE_INFINITY },
  session: { idleMs: 300_000, waitMs: 5_000 },
  "computer-use": { idleMs: 60_000, waitMs: 5_000 },
} as const satisfies Record<LeasePurpose, HoldPolicy>;

/**
 * The policy of `purpose` on a host: its `holding` options over the defaults. An interactive holder never idles longer
 * than the host's `idleMs` when that is shorter.
 */
export function policyOf(
  hostIdleMs: number | undefined,
  holding: { [P in LeasePurpose]?: HoldPolicy } | undefined,
  purpose: LeasePurpose,
): { idleMs: number; waitMs: number } {
  const given = holding?.[purpose];
  const hostIdle = hostIdleMs ?? 300_000;
  const idleMs = purpose === "run" ? hostIdle : Math.min(hostIdle, DEFAULT_HOLDING[purpose].idleMs);
  return {
    idleMs: Math.max(1, given?.idleMs ?? idleMs),
    waitMs: Math.max(0, given?.waitMs ?? DEFAULT_HOLDING[purpose].waitMs),
  };
}
