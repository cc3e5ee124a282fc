import { decodeCursor, encodeCursor, type KeysetPage, toKeysetPage } from "@vetted/store";
import { and, asc, count, desc, eq, gt, gte, lt } from "drizzle-orm";
import type { Run, RunEvent } from "../domain/run.js";
import { RUN_STATUSES, type RunStatus } from "../domain/status.js";
import { toEvent } from "../kernel/hub.js";
import { events, runs } from "../store/schema.js";
import { type ListQuery, newestFirstAfter, newestFirstPage, pageLimit } from "./lists.js";
import { readRun } from "./persist.js";
import type { RunsResources } from "./resources.js";
import { toRun } from "./views.js";

/** A run list query. */
export type RunListQuery = ListQuery & {
  status?: RunStatus | undefined;
  template_id?: string | undefined;
  flow_id?: string | undefined;
  /** Only runs created at or after this instant (ISO 8601). */
  created_after?: string | undefined;
  /** Only runs created before this instant (ISO 8601). */
  created_before?: string | undefined;
};

/** An event list query: `cursor` (a `next_cursor`) or `after` (an event id) — `cursor` wins when both come. */
export type EventListQuery = ListQuery & { after?: number | undefined };

function eventsList(runId: string): string {
  return `run_events:${runId}`;
}

/** One run, without secrets or codes. @throws RUN_NOT_FOUND */
export async function getRun(r: RunsResources, runId: string): Promise<Run> {
  return toRun(await readRun(r.db, runId));
}

/** Runs, newest first, optionally by status, template, flow or creation time. @throws CURSOR_INVALID */
export async function listRuns(r: RunsResources, query: RunListQuery = {}): Promise<KeysetPage<Run>> {
  const limit = pageLimit(query.limit);
  const rows = await r.db
    .select()
    .from(runs)
    .where(
      and(
        newestFirstAfter(runs, "runs", query.cursor),
        query.status === undefined ? undefined : eq(runs.status, query.status),
        query.template_id === undefined ? undefined : eq(runs.templateId, query.template_id),
        query.flow_id === undefined ? undefined : eq(runs.flowId, query.flow_id),
        query.created_after === undefined ? undefined : gte(runs.createdAt, Date.parse(query.created_after)),
        query.created_before === undefined ? undefined : lt(runs.createdAt, Date.parse(query.created_before)),
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit + 1);
  return newestFirstPage(rows, limit, "runs", toRun);
}

/** The run's event log, oldest first, after `cursor` (or the event id `after`). @throws RUN_NOT_FOUND, CURSOR_INVALID */
export async function listEvents(
  r: RunsResources,
  runId: string,
  query: EventListQuery = {},
): Promise<KeysetPage<RunEvent>> {
  await readRun(r.db, runId);
  const limit = pageLimit(query.limit ?? 100);
  const after =
    query.cursor === undefined
      ? (query.after ?? 0)
      : Number(decodeCursor(query.cursor, eventsList(runId), ["integer"])[0]);
  const rows = await r.db
    .select()
    .from(events)
    .where(and(eq(events.runId, runId), gt(events.seq, after)))
    .orderBy(asc(events.seq))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toEvent, (last) => encodeCursor(eventsList(runId), [last.seq]));
}

/** How many runs are in each status. */
export async function countRunsByStatus(r: RunsResources): Promise<Record<RunStatus, number>> {
  const rows = await r.db.select({ status: runs.status, n: count() }).from(runs).groupBy(runs.status);
  const out = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>;
  for (const row of rows) out[row.status] = row.n;
  return out;
}
