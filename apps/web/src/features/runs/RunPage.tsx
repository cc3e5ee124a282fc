import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useCallback, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { type SseMessage, useEventStream } from "../../api/sse.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { GateForm } from "./GateForm.js";

type RunEvent = components["schemas"]["RunEvent"];
type Evidence = components["schemas"]["StepEvidence"];
const FINISHED = new Set(["success", "failed", "cancelled"]);

function Timeline({ runId, evidence }: { runId: string; evidence: Evidence[] }) {
  if (evidence.length === 0) return <p className="muted">No step has finished yet.</p>;
  return (
    <ol className="timeline">
      {evidence.map((e) => (
        <li key={e.id}>
          <strong>{e.step_id}</strong> <span className="muted">({e.step_type})</span> — {e.outcome},{" "}
          {e.duration_ms} ms
          {e.screenshots.map((s) => (
            <div key={s.name}>
              <img
                alt={`Screenshot ${s.name} of step ${e.step_id}`}
                src={`/api/runs/${encodeURIComponent(runId)}/evidence/${encodeURIComponent(e.id)}/screenshots/${encodeURIComponent(s.name)}`}
                style={{ maxWidth: "32rem", border: "1px solid var(--border)" }}
              />
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}

/** `/runs/$runId`: the run, its gate form, step timeline with durations and evidence, live events (SSE). */
export function RunPage() {
  const { runId } = useParams({ from: "/runs/$runId" });
  const queryClient = useQueryClient();
  const [events, setEvents] = useState<RunEvent[]>([]);
  const run = useQuery({
    queryKey: ["run", runId],
    queryFn: () => unwrap(api.GET("/api/runs/{run_id}", { params: { path: { run_id: runId } } })),
  });
  const evidence = useQuery({
    queryKey: ["run", runId, "evidence"],
    queryFn: () =>
      unwrap(
        api.GET("/api/runs/{run_id}/evidence", {
          params: { path: { run_id: runId }, query: { limit: 500 } },
        }),
      ),
  });
  const onMessage = useCallback(
    (m: SseMessage) => {
      try {
        const event = JSON.parse(m.data) as RunEvent;
        if (typeof event.id !== "number") return;
        setEvents((prev) => (prev.some((p) => p.id === event.id) ? prev : [...prev, event]));
        void queryClient.invalidateQueries({ queryKey: ["run", runId] });
      } catch {
        // a frame that is not an event
      }
    },
    [queryClient, runId],
  );
  const live = run.data !== undefined && !FINISHED.has(run.data.status);
  useEventStream(`/api/runs/${encodeURIComponent(runId)}/events/stream`, onMessage, run.data !== undefined);
  if (run.isPending) return <Loading what="the run" />;
  if (run.isError) return <ErrorState error={run.error} title="The run could not be loaded" />;
  const r = run.data;
  return (
    <section>
      <p>
        <Link to="/runs">← Runs</Link>
      </p>
      <h1>
        Run <code>{r.id}</code>{" "}
        <span className={`badge badge-${r.status}`} data-testid="run-status">
          {r.status}
        </span>
      </h1>
      <p className="muted">
        Flow{" "}
        <Link to="/flows/$flowId" params={{ flowId: r.flow_id }}>
          {r.flow_id}
        </Link>{" "}
        v{r.flow_version}
        {r.reason ? ` · reason ${r.reason}` : ""}
        {r.error ? ` · ${r.error}` : ""}
        {live ? " · live" : ""}
      </p>
      <GateForm run={r} />
      <h2>Steps</h2>
      {evidence.isError ? <ErrorState error={evidence.error} /> : null}
      <Timeline runId={r.id} evidence={evidence.data?.items ?? []} />
      <h2>Events</h2>
      <ol className="events" data-testid="events">
        {events.map((e) => (
          <li key={e.id}>
            <code>{e.type}</code> <span className="muted">{new Date(e.at).toLocaleTimeString()}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
