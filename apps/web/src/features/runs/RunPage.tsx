import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useCallback, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { type SseMessage, useEventStream } from "../../api/sse.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { EvidenceImage } from "./EvidenceImage.js";
import { GateForm } from "./GateForm.js";

type RunEvent = components["schemas"]["RunEvent"];
type Evidence = components["schemas"]["StepEvidence"];
const FINISHED = new Set(["success", "failed", "cancelled"]);

/** One step of the timeline: from its step_started/step_finished events, with its evidence if any. */
interface StepLine {
  stepId: string;
  outcome: string;
  durationMs: number | undefined;
  evidence: Evidence | undefined;
}

/** The step timeline from the run's events (durations from start to finish) joined with step evidence. */
export function stepLines(events: RunEvent[], evidence: Evidence[]): StepLine[] {
  const lines: StepLine[] = [];
  const started = new Map<string, number>();
  for (const e of events) {
    const stepId = typeof e.data.step_id === "string" ? e.data.step_id : undefined;
    if (stepId === undefined) continue;
    if (e.type === "step_started") started.set(stepId, Date.parse(e.at));
    if (e.type === "step_finished") {
      const begin = started.get(stepId);
      const outcome = typeof e.data.outcome === "string" ? e.data.outcome : "finished";
      const ev = evidence.find((x) => x.step_id === stepId);
      lines.push({
        stepId,
        outcome,
        durationMs:
          typeof e.data.duration_ms === "number"
            ? e.data.duration_ms
            : begin === undefined
              ? undefined
              : Date.parse(e.at) - begin,
        evidence: ev,
      });
    }
  }
  return lines;
}

function Timeline({ runId, lines, refresh }: { runId: string; lines: StepLine[]; refresh: number }) {
  if (lines.length === 0) return <p className="muted">No step has finished yet.</p>;
  return (
    <ol className="timeline" data-testid="timeline">
      {lines.map((line, n) => (
        <li key={`${line.stepId}-${n.toString()}`}>
          <strong>{line.stepId}</strong> — {line.outcome}
          {line.durationMs === undefined ? "" : `, ${line.durationMs} ms`}
          {line.evidence?.screenshots.map((s) => (
            <EvidenceImage
              key={s.name}
              label={s.name}
              alt={`Screenshot ${s.name} of step ${line.stepId}`}
              src={`/api/runs/${encodeURIComponent(runId)}/evidence/${encodeURIComponent(line.evidence?.id ?? "")}/screenshots/${encodeURIComponent(s.name)}`}
              refresh={refresh}
            />
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
  const flowId = run.data?.flow_id;
  // The run carries only the flow's id; its name comes from the flow (cached with the flow page's).
  const flow = useQuery({
    queryKey: ["flow", flowId],
    queryFn: () => unwrap(api.GET("/api/flows/{flow_id}", { params: { path: { flow_id: flowId ?? "" } } })),
    enabled: flowId !== undefined,
    staleTime: 60_000,
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
          {flow.data?.name ?? r.flow_id}
        </Link>{" "}
        v{r.flow_version}
        {r.reason ? ` · reason ${r.reason}` : ""}
        {r.error ? ` · ${r.error}` : ""}
        {live ? " · live" : ""}
      </p>
      <GateForm run={r} />
      <h2>Steps</h2>
      {evidence.isError ? <ErrorState error={evidence.error} /> : null}
      <Timeline runId={r.id} lines={stepLines(events, evidence.data?.items ?? [])} refresh={events.length} />
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
