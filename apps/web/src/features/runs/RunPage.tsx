import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { type SseMessage, useEventStream } from "../../api/sse.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { GateForm } from "./GateForm.js";
import { LiveView } from "./LiveView.js";
import { shownParams, stepRows } from "./model/run-model.js";
import { RunActions } from "./RunActions.js";
import { EventsList, StepsList, ValuesTable } from "./RunDetails.js";
import { handBack, useResume } from "./resume.js";

type RunEvent = components["schemas"]["RunEvent"];
const FINISHED = new Set(["success", "failed", "cancelled"]);

/**
 * `/runs/$runId`: the run, its actions (cancel, re-run) and gate form, its params and vars, every step of
 * its flow with state and evidence, and every event with its payload (live, SSE).
 */
export function RunPage() {
  const { runId } = useParams({ from: "/runs/$runId" });
  // Keyed by the run: a re-run opens another run on the same route, which must not inherit these events.
  return <RunView key={runId} runId={runId} />;
}

function RunView({ runId }: { runId: string }) {
  const queryClient = useQueryClient();
  const [events, setEvents] = useState<RunEvent[]>([]);
  // The wait (its opened_at) at which this tab took the run's page: control ends with the wait.
  const [heldAt, setHeldAt] = useState<string | null>(null);
  const resume = useResume(runId);
  const run = useQuery({
    queryKey: ["run", runId],
    queryFn: () => unwrap(api.GET("/api/runs/{run_id}", { params: { path: { run_id: runId } } })),
  });
  const flowId = run.data?.flow_id;
  // The run carries only the flow's id; its name and steps come from the flow (cached with the flow page's).
  const flow = useQuery({
    queryKey: ["flow", flowId],
    queryFn: () => unwrap(api.GET("/api/flows/{flow_id}", { params: { path: { flow_id: flowId ?? "" } } })),
    enabled: flowId !== undefined,
    staleTime: 60_000,
  });
  const templateId = run.data?.template_id ?? null;
  const template = useQuery({
    queryKey: ["template", templateId],
    queryFn: () =>
      unwrap(
        api.GET("/api/templates/{template_id}", { params: { path: { template_id: templateId ?? "" } } }),
      ),
    enabled: templateId !== null,
    staleTime: 60_000,
  });
  const secretKeys = (template.data?.params_schema ?? [])
    .filter((p) => p.type === "secret")
    .map((p) => p.key);
  const evidence = useQuery({
    queryKey: ["run", runId, "evidence"],
    queryFn: () =>
      unwrap(
        api.GET("/api/runs/{run_id}/evidence", {
          params: { path: { run_id: runId }, query: { limit: 500 } },
        }),
      ),
  });
  // The events of one read of the stream (a commit's batch) are folded into one refetch: a refetch per
  // event would start one after another, each dropping the last, and the run (its gate, its live page)
  // would show only once the last came back from a server busy with all of them.
  const refetch = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refetch.current), []);
  const onMessage = useCallback(
    (m: SseMessage) => {
      try {
        const event = JSON.parse(m.data) as RunEvent;
        if (typeof event.id !== "number") return;
        setEvents((prev) => (prev.some((p) => p.id === event.id) ? prev : [...prev, event]));
        if (refetch.current !== undefined) return;
        refetch.current = setTimeout(() => {
          refetch.current = undefined;
          void queryClient.invalidateQueries({ queryKey: ["run", runId] });
        }, 0);
      } catch {
        // a frame that is not an event
      }
    },
    [queryClient, runId],
  );
  useEventStream(`/api/runs/${encodeURIComponent(runId)}/events/stream`, onMessage, run.data !== undefined);
  if (run.isPending) return <Loading what="the run" />;
  if (run.isError) return <ErrorState error={run.error} title="The run could not be loaded" />;
  const r = run.data;
  const ended = FINISHED.has(r.status);
  const retryOf = events.find((e) => e.type === "run_created")?.data.retry_of;
  const waitKey = r.wait_context?.opened_at ?? null;
  const inControl = heldAt !== null && heldAt === waitKey;
  const handBackFirst = async () => {
    await handBack(r.id);
    setHeldAt(null);
  };
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
        {ended ? "" : " · live"}
        {typeof retryOf === "string" ? (
          <>
            {" · retry of "}
            <Link to="/runs/$runId" params={{ runId: retryOf }}>
              <code>{retryOf}</code>
            </Link>
          </>
        ) : null}
      </p>
      <RunActions run={r} secretKeys={secretKeys} />
      {r.status === "waiting_otp" || r.status === "waiting_user" ? (
        <LiveView
          run={r}
          resume={resume}
          inControl={inControl}
          setInControl={(held) => setHeldAt(held ? waitKey : null)}
          handBackFirst={handBackFirst}
        />
      ) : null}
      <GateForm run={r} resume={resume} before={inControl ? handBackFirst : undefined} />
      <h2>Steps</h2>
      {flow.isError ? <ErrorState error={flow.error} title="The flow's steps could not be loaded" /> : null}
      {evidence.isError ? <ErrorState error={evidence.error} /> : null}
      {flow.data !== undefined && flow.data.version !== r.flow_version ? (
        <p className="muted">The flow is now at v{flow.data.version}; its current steps are shown.</p>
      ) : null}
      {flow.data === undefined ? null : (
        <StepsList
          runId={r.id}
          rows={stepRows(flow.data.steps, events, ended)}
          evidence={evidence.data?.items ?? []}
          refresh={events.length}
        />
      )}
      <div className="cards">
        <ValuesTable title="Params" values={shownParams(r.params, secretKeys)} />
        <ValuesTable title="Vars" values={r.vars} />
      </div>
      <h2>Events</h2>
      <EventsList events={events} />
    </section>
  );
}
