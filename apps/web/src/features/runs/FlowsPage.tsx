import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { api, unwrap } from "../../api/client.js";
import { EmptyState, ErrorState, Loading } from "../../ui/states.js";
import { flowParamNames } from "./model/run-model.js";
import { StartRunForm } from "./StartRunForm.js";

/** `/flows`: the flows (read view). */
export function FlowsPage() {
  const flows = useQuery({ queryKey: ["flows"], queryFn: () => unwrap(api.GET("/api/flows", {})) });
  return (
    <section>
      <h1>Flows</h1>
      {flows.isPending ? <Loading what="flows" /> : null}
      {flows.isError ? <ErrorState error={flows.error} /> : null}
      {flows.data?.items.length === 0 ? <EmptyState title="No flows yet" /> : null}
      <ul>
        {flows.data?.items.map((f) => (
          <li key={f.id}>
            <Link to="/flows/$flowId" params={{ flowId: f.id }}>
              {f.name}
            </Link>{" "}
            <span className="muted">
              v{f.version} · {f.steps.length} steps
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `/flows/$flowId`: one flow's steps and a form to start a run of it (one field per param it reads). */
export function FlowPage() {
  const { flowId } = useParams({ from: "/flows/$flowId" });
  const flow = useQuery({
    queryKey: ["flow", flowId],
    queryFn: () => unwrap(api.GET("/api/flows/{flow_id}", { params: { path: { flow_id: flowId } } })),
  });
  if (flow.isPending) return <Loading what="the flow" />;
  if (flow.isError) return <ErrorState error={flow.error} />;
  return (
    <section>
      <p>
        <Link to="/flows">← Flows</Link>
      </p>
      <h1>
        {flow.data.name} <span className="muted">v{flow.data.version}</span>
      </h1>
      <ol>
        {flow.data.steps.map((s) => (
          <li key={s.id}>
            <code>{s.id}</code> <span className="badge">{s.type}</span>
          </li>
        ))}
      </ol>
      <h2>Start a run</h2>
      <StartRunForm
        key={`${flow.data.id}-${flow.data.version}`}
        origin={{ flow_id: flow.data.id }}
        specs={flowParamNames(flow.data.steps).map((key) => ({ key, type: "string", required: false }))}
      />
    </section>
  );
}
