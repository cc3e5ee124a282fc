/** The runs list's filters as the API's query (`GET /api/runs`). */
export interface RunsQuery {
  status?: string;
  template_id?: string;
  flow_id?: string;
  created_after?: string;
  created_before?: string;
}

/** A `datetime-local` value (read in the browser's time zone) as an ISO instant, or undefined. */
function instant(local: string | undefined): string | undefined {
  if (local === undefined) return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `{ status, source: "template:<id>" | "flow:<id>", from, to }` → the API's query (unset parts left out). */
export function runsQuery(f: { status?: string; source?: string; from?: string; to?: string }): RunsQuery {
  const q: RunsQuery = {};
  if (f.status !== undefined) q.status = f.status;
  const [kind, ...rest] = (f.source ?? "").split(":");
  const id = rest.join(":");
  if (kind === "template" && id !== "") q.template_id = id;
  if (kind === "flow" && id !== "") q.flow_id = id;
  const after = instant(f.from);
  const before = instant(f.to);
  if (after !== undefined) q.created_after = after;
  if (before !== undefined) q.created_before = before;
  return q;
}

/** What a bulk cancel did: how many were cancelled, and the failures by run id. */
export interface BulkOutcome {
  cancelled: number;
  failed: { id: string; message: string }[];
}

/** Folds the settled cancels (in the order of `ids`) into a {@link BulkOutcome}. */
export function bulkOutcome(
  ids: readonly string[],
  settled: readonly PromiseSettledResult<unknown>[],
): BulkOutcome {
  const out: BulkOutcome = { cancelled: 0, failed: [] };
  settled.forEach((s, n) => {
    if (s.status === "fulfilled") out.cancelled++;
    else
      out.failed.push({
        id: ids[n] ?? "?",
        message: s.reason instanceof Error ? s.reason.message : String(s.reason),
      });
  });
  return out;
}
