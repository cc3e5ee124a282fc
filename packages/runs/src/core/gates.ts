import { and, inArray, isNotNull, lte, sql } from "drizzle-orm";
import { isTerminal, RUN_STATUSES, WAITING_STATUSES } from "../domain/status.js";
import { expireGate, type RunState, type Transition, timeOutRun } from "../domain/transitions.js";
import { runs } from "../store/schema.js";
import { loadRun, persist } from "./persist.js";
import { LeaseLost, type RunsResources } from "./resources.js";
import { stateOf } from "./views.js";

const RUN_ACTIVE = RUN_STATUSES.filter((s) => !isTerminal(s));
const RUN_WAITING = [...WAITING_STATUSES];
const SWEEP_BATCH = 100;

/** Deadlines: gates that waited too long, runs past their `run_timeout_seconds`. */
export function createGates(r: RunsResources) {
  let lastSweep = 0;
  // Built and prepared once: the sweep runs every poll interval.
  const due = sql.placeholder("at");
  const expiringQuery = r.db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(inArray(runs.status, RUN_WAITING), isNotNull(runs.waitExpiresAt), lte(runs.waitExpiresAt, due)),
    )
    .limit(SWEEP_BATCH)
    .prepare();
  const lateQuery = r.db
    .select({ id: runs.id })
    .from(runs)
    .where(and(inArray(runs.status, RUN_ACTIVE), lte(runs.deadlineAt, due)))
    .limit(SWEEP_BATCH)
    .prepare();

  /** Applies `decide` to the run in one transaction, guarded by its version; whether it fired. */
  async function fire(id: string, decide: (s: RunState) => Transition | undefined): Promise<boolean> {
    return r.write(async (tx) => {
      const row = await loadRun(tx, id);
      const t = decide(stateOf(row));
      return t !== undefined && (await persist(r, tx, row, t, r.now())) !== undefined;
    });
  }

  /** Expires gates and run timeouts that are due; at most once per poll interval. */
  async function sweep(): Promise<void> {
    const at = r.now();
    if (at - lastSweep < r.pollMs) return;
    lastSweep = at;
    const expiring = await expiringQuery.all({ at });
    const late = await lateQuery.all({ at });
    await releaseGone();
    for (const { id } of expiring) {
      if (await fire(id, (s) => expireGate(s, r.now()))) r.observer.timedOut?.("wait_timeout");
    }
    for (const { id } of late) {
      if (await fire(id, timeOutRun)) {
        r.observer.timedOut?.("run_timeout");
        r.controllers.get(id)?.abort(new LeaseLost("run timeout"));
      }
    }
  }

  /**
   * Closes the pages kept open at a gate whose run ended meanwhile (cancelled, expired). A page of a run
   * resumed by another process is lent: closed when its slot is needed, or once idle.
   */
  async function releaseGone(): Promise<void> {
    const kept = r.browserRuntime.keptPages().filter((id) => !r.controllers.has(id));
    if (kept.length === 0) return;
    const rows = await r.db
      .select({ id: runs.id, status: runs.status })
      .from(runs)
      .where(inArray(runs.id, kept));
    for (const row of rows) {
      if (isTerminal(row.status) && !r.controllers.has(row.id))
        await r.browserRuntime.release(row.id).catch(() => undefined);
    }
  }

  return { sweep };
}
