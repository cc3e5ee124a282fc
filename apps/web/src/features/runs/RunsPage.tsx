import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useSearch } from "@tanstack/react-router";
import { useCallback, useEffect, useRef } from "react";
import { api, unwrap } from "../../api/client.js";
import type { paths } from "../../api/schema.js";
import { type SseMessage, useEventStream } from "../../api/sse.js";
import { EmptyState, ErrorState, Loading, TableScroll } from "../../ui/states.js";
import { type RunsQuery, runsQuery } from "./model/runs-filter.js";
import { RunsFilters } from "./RunsFilters.js";
import { RunsTable } from "./RunsTable.js";
import { useRunSources } from "./run-names.js";
import { humanDuration, relative } from "./time.js";

type ListQuery = NonNullable<paths["/api/runs"]["get"]["parameters"]["query"]>;
/** How often the lists are polled while the change stream is disconnected (never while it is connected). */
const FALLBACK_POLL_MS = 30_000;
/** Changes arriving within this window are folded into one refetch. */
const COALESCE_MS = 100;

function useRuns(query: RunsQuery, live: boolean) {
  return useQuery({
    queryKey: ["runs", query],
    queryFn: () => unwrap(api.GET("/api/runs", { params: { query: { limit: 100, ...query } as ListQuery } })),
    refetchInterval: live ? false : FALLBACK_POLL_MS,
  });
}

/**
 * Follows `/api/runs/stream` and refetches the run lists when a run is created or changes status (also on
 * `ready`, which covers what changed between the first fetch and the stream's start). Answers whether the
 * stream is connected.
 */
function useLiveRuns(): boolean {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onMessage = useCallback(
    (m: SseMessage) => {
      if (m.event !== "change" && m.event !== "ready") return;
      if (timer.current !== undefined) return;
      timer.current = setTimeout(() => {
        timer.current = undefined;
        void queryClient.invalidateQueries({ queryKey: ["runs"] });
      }, COALESCE_MS);
    },
    [queryClient],
  );
  return useEventStream("/api/runs/stream", onMessage);
}

/** Waiting runs (OTP or a person) first: how long they have waited and when the gate expires. */
function WaitingRuns({ live }: { live: boolean }) {
  const otp = useRuns({ status: "waiting_otp" }, live);
  const user = useRuns({ status: "waiting_user" }, live);
  const waiting = [...(otp.data?.items ?? []), ...(user.data?.items ?? [])].sort((a, b) =>
    (a.wait_context?.opened_at ?? "").localeCompare(b.wait_context?.opened_at ?? ""),
  );
  if (waiting.length === 0) return null;
  const now = Date.now();
  return (
    <section aria-labelledby="waiting-title">
      <h2 id="waiting-title">Waiting for you ({waiting.length})</h2>
      <TableScroll label="Runs waiting for you">
        <table>
          <thead>
            <tr>
              <th>Run</th>
              <th>Gate</th>
              <th>Waiting for</th>
              <th>Gate expires</th>
            </tr>
          </thead>
          <tbody>
            {waiting.map((run) => (
              <tr key={run.id} data-testid="waiting-run">
                <td>
                  <Link to="/runs/$runId" params={{ runId: run.id }}>
                    {run.id}
                  </Link>
                </td>
                <td>{run.wait_context?.prompt ?? run.status}</td>
                <td>
                  {run.wait_context ? humanDuration(now - Date.parse(run.wait_context.opened_at)) : "—"}
                </td>
                <td>{run.wait_context ? relative(run.wait_context.expires_at, now) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

/** `/runs`: waiting runs first, then runs by status, template or flow and time (in the URL); bulk cancel. */
export function RunsPage() {
  const search = useSearch({ from: "/runs" });
  const live = useLiveRuns();
  const runs = useRuns(runsQuery(search), live);
  const sourceOf = useRunSources(runs.data?.items ?? []);
  return (
    <section>
      <h1>Runs</h1>
      <p className="muted" data-testid="runs-live" data-live={live}>
        {live ? "Live: updates as runs change." : `Not live: refreshing every ${FALLBACK_POLL_MS / 1000} s.`}
      </p>
      <p className="toolbar">
        <Link to="/flows">Flows (start a run)</Link> · <Link to="/templates">Templates (start a run)</Link>
      </p>
      <WaitingRuns live={live} />
      <h2>All runs</h2>
      <RunsFilters />
      {runs.isPending ? <Loading what="runs" /> : null}
      {runs.isError ? <ErrorState error={runs.error} /> : null}
      {runs.data?.items.length === 0 ? (
        <EmptyState title="No runs">
          <p>None match these filters, or none has started: start one from a template or a flow.</p>
        </EmptyState>
      ) : null}
      {runs.data !== undefined && runs.data.items.length > 0 ? (
        <RunsTable runs={runs.data.items} sourceOf={sourceOf} />
      ) : null}
    </section>
  );
}
