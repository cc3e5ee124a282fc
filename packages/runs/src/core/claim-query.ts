import { and, asc, eq, lt, notInArray, or } from "drizzle-orm";
import { statusesInto } from "../domain/status.js";
import { runs } from "../store/schema.js";
import { BROWSERLESS_CANDIDATES, needsBrowserNext } from "./browser-claims.js";
import type { RunsResources } from "./resources.js";
import type { RunRow } from "./views.js";

const CLAIMABLE = statusesInto("running");

/** A run this worker may claim: queued, or running under a lease that expired. */
export function claimable(at: number) {
  return or(eq(runs.status, "queued"), and(eq(runs.status, "running"), lt(runs.leaseExpiresAt, at)));
}

/** Whether the row as read inside the claim's transaction may still be claimed (the claim's guard). */
export function isClaimable(row: Pick<RunRow, "status" | "leaseExpiresAt">, at: number): boolean {
  // The statuses the table lets move to running: queued, and running itself (a re-claim) once its lease expired.
  if (!CLAIMABLE.includes(row.status)) return false;
  return row.status !== "running" || (row.leaseExpiresAt ?? 0) < at;
}

/**
 * The oldest claimable runs' ids (up to `limit`), by a cheap read that takes no write lock (most polls
 * find nothing). A run this process is still executing is never re-claimed here, even past its lease (a
 * stalled event loop): its own heartbeat renews it, and a second claim would race the first for the run's
 * page. While every browser context is held, a run whose next step needs the browser is left queued and
 * the oldest ones that need none are taken: waiting browser work never holds a slot a `set` run could
 * use; with a context free, at most one run that needs the browser is taken per read.
 */
export async function findClaimableIds(r: RunsResources, at: number, limit: number): Promise<string[]> {
  const mine = [...r.controllers.keys()];
  const where = mine.length === 0 ? claimable(at) : and(claimable(at), notInArray(runs.id, mine));
  const free = r.browserRuntime.hasFreeContext();
  if (free && limit === 1) {
    const [row] = await r.db
      .select({ id: runs.id })
      .from(runs)
      .where(where)
      .orderBy(asc(runs.updatedAt))
      .limit(1);
    return row === undefined ? [] : [row.id];
  }
  const rows = await r.db
    .select({ id: runs.id, steps: runs.steps, cursor: runs.cursor })
    .from(runs)
    .where(where)
    .orderBy(asc(runs.updatedAt))
    .limit(free ? limit : Math.max(limit, BROWSERLESS_CANDIDATES));
  const ids: string[] = [];
  let browserTaken = free ? 0 : 1;
  for (const row of rows) {
    if (ids.length >= limit) break;
    if (needsBrowserNext(row.steps, row.cursor)) {
      if (browserTaken >= 1) continue;
      browserTaken += 1;
    }
    ids.push(row.id);
  }
  return ids;
}
