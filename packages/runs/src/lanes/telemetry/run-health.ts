import { and, asc, count, eq, gte, inArray, isNotNull, lt, lte } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { RUN_STATUSES, type RunStatus, WAITING_STATUSES } from "../../domain/status.js";
import { runs } from "../../store/schema.js";

/** The most run ids an alert lists. */
const MAX_LISTED = 50;

/** What the health lane knows about runs at one moment. */
export interface RunHealth {
  byStatus: Record<RunStatus, number>;
  /** Runs that finished since the window start, by outcome. */
  finishedInWindow: { success: number; failed: number; cancelled: number };
  /** Worker leases on running runs: still valid, and expired (the run is stuck until a worker re-claims it). */
  leases: { held: number; expired: number };
  /** Runs `running` whose lease expired (at most 50, oldest lease first). */
  stuckRunIds: string[];
  /** Waiting runs whose gate expires before `gateHorizonEnd` (at most 50, soonest first). */
  expiringGateRunIds: string[];
}

/** When to read {@link RunHealth} for: now, the window's start and the gate horizon's end (ms since the epoch). */
export interface RunHealthQuery {
  now: number;
  windowStart: number;
  gateHorizonEnd: number;
}

async function statusCounts(db: LibSQLDatabase): Promise<Record<RunStatus, number>> {
  const rows = await db.select({ status: runs.status, n: count() }).from(runs).groupBy(runs.status);
  const out = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>;
  for (const row of rows) out[row.status] = row.n;
  return out;
}

async function finishedSince(db: LibSQLDatabase, since: number): Promise<RunHealth["finishedInWindow"]> {
  const rows = await db
    .select({ status: runs.status, n: count() })
    .from(runs)
    .where(and(inArray(runs.status, ["success", "failed", "cancelled"]), gte(runs.finishedAt, since)))
    .groupBy(runs.status);
  const out = { success: 0, failed: 0, cancelled: 0 };
  for (const row of rows) {
    if (row.status === "success" || row.status === "failed" || row.status === "cancelled")
      out[row.status] = row.n;
  }
  return out;
}

/** Reads run counts, leases, stuck runs and gates about to expire. */
export async function readRunHealth(db: LibSQLDatabase, q: RunHealthQuery): Promise<RunHealth> {
  const leased = and(eq(runs.status, "running"), isNotNull(runs.leaseOwner), isNotNull(runs.leaseExpiresAt));
  const [held] = await db
    .select({ n: count() })
    .from(runs)
    .where(and(leased, gte(runs.leaseExpiresAt, q.now)));
  const stuck = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.status, "running"), lt(runs.leaseExpiresAt, q.now)))
    .orderBy(asc(runs.leaseExpiresAt))
    .limit(MAX_LISTED);
  const [stuckTotal] = await db
    .select({ n: count() })
    .from(runs)
    .where(and(eq(runs.status, "running"), lt(runs.leaseExpiresAt, q.now)));
  const expiring = await db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        inArray(runs.status, [...WAITING_STATUSES]),
        gte(runs.waitExpiresAt, q.now),
        lte(runs.waitExpiresAt, q.gateHorizonEnd),
      ),
    )
    .orderBy(asc(runs.waitExpiresAt))
    .limit(MAX_LISTED);
  return {
    byStatus: await statusCounts(db),
    finishedInWindow: await finishedSince(db, q.windowStart),
    leases: { held: held?.n ?? 0, expired: stuckTotal?.n ?? 0 },
    stuckRunIds: stuck.map((row) => row.id),
    expiringGateRunIds: expiring.map((row) => row.id),
  };
}
